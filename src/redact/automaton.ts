// One Aho–Corasick automaton over every form of every secret: a text is scanned once per reading,
// whatever the forms are and however much they share, so redaction costs text + forms + matches.
//
// A step's answer of 1 MiB makes millions of trie nodes, so a node is a few typed-array entries, not
// an object: its parent, the byte that leads to it, its failure link (the node of the longest proper
// suffix of its path that is also in the trie) and `out`, the length of the longest pattern that
// ends there (itself or a suffix of it, through the failure links; 0: none). Most nodes of such a
// trie have one child (a secret's tail shares nothing), so a node's first child is kept beside it;
// the others are found in one open-addressing table keyed by (parent, byte), and the root's in a
// plain table of 256. A chain of first children is allocated in a row: adding a long secret writes
// memory in order.
//
// Secrets arrive while a run goes on (a step's answer, a rendered header), so patterns are added as
// they come, and the links are made lazily, for the nodes a scan reaches: an error message of a few
// hundred bytes, checked against a step's answer of a megabyte, links a few hundred paths, not the
// millions of nodes of every form (made in order of depth, that took seconds of random memory
// access). Adding a pattern starts a new generation, in which every link is made again when needed.

/** Called every few thousand steps of work; throws when the deadline has passed. */
export type Check = () => void;

/** How many steps of work go by between two checks of the deadline. */
const CHECK_EVERY = 0x1000;

export class Automaton {
  private capacity = 1024;
  private parent = new Int32Array(this.capacity);
  private label = new Uint8Array(this.capacity);
  private fail = new Int32Array(this.capacity);
  /** The longest pattern ending at this node, itself or through its failure links (valid when linked). */
  private out = new Int32Array(this.capacity);
  /** The length of the pattern that ends exactly at this node (its depth), 0 if none. */
  private own = new Int32Array(this.capacity);
  /** The generation in which `fail` and `out` were made; the root is always linked. */
  private linkedIn = new Int32Array(this.capacity);
  private generation = 1;
  /** The first child of each node (0: none; the root is nobody's child). */
  private first = new Int32Array(this.capacity);
  /** 1 when a node has children besides the first: they are in `slots`. */
  private more = new Uint8Array(this.capacity);
  /** The other children (0: empty slot) by hash of (parent, byte). */
  private slots = new Int32Array(1024);
  private hashed = 0;
  private readonly rootNext = new Int32Array(256);
  /** Nodes in use; the root is node 0. */
  private nodes = 1;
  private count = 0;
  private work = 0;

  /** How many distinct patterns were added. */
  get patterns(): number {
    return this.count;
  }

  /** Adds a pattern: bytes[0, length), at least one byte. */
  add(bytes: Uint8Array, length: number, check: Check): void {
    let node = 0;
    for (let i = 0; i < length; i++) {
      if (++this.work >= CHECK_EVERY) this.spend(check);
      const c = bytes[i]!;
      let next = this.child(node, c);
      if (next === 0) next = this.grow(node, c, check);
      node = next;
    }
    if (this.own[node] !== length) {
      this.own[node] = length;
      this.count++;
      this.unlink();
    }
  }

  /**
   * Makes the failure link and `out` of `node`, and first those of what they depend on: its parent
   * and the node its link leads to (both shallower). So a linked node's failure chain is linked all
   * along, and the walk down it from the parent's link meets no node without one. Each node's walk
   * costs what its link's depth rose from its parent's, so the links of a path cost its length, in
   * whatever order they are made; a node whose link target is not linked yet walks once more.
   */
  private link(node: number, check: Check): void {
    const { parent, label, fail, out, own, linkedIn, generation } = this;
    const stack = [node];
    while (stack.length > 0) {
      if (++this.work >= CHECK_EVERY) this.spend(check);
      const u = stack[stack.length - 1]!;
      if (u === 0 || linkedIn[u] === generation) {
        stack.pop();
        continue;
      }
      const p = parent[u]!;
      if (p !== 0 && linkedIn[p] !== generation) {
        stack.push(p);
        continue;
      }
      let target = 0;
      if (p !== 0) {
        const c = label[u]!;
        for (let f = fail[p]!; ; f = fail[f]!) {
          if (++this.work >= CHECK_EVERY) this.spend(check);
          const next = this.child(f, c);
          if (next !== 0) {
            target = next;
            break;
          }
          if (f === 0) break;
        }
      }
      if (target !== 0 && linkedIn[target] !== generation) {
        stack.push(target);
        continue;
      }
      fail[u] = target;
      out[u] = own[u]! > 0 ? own[u]! : out[target]!;
      linkedIn[u] = generation;
      stack.pop();
    }
  }

  /**
   * Scans `bytes[0, length)` and calls `found(end, length)` with the longest pattern ending at each
   * index that ends one. Shorter patterns ending there lie inside it, so for redaction, which hides
   * spans, they add nothing: the work is one step per byte plus the failure links taken, which
   * never outnumber the bytes.
   */
  scan(bytes: Uint8Array, length: number, found: (end: number, length: number) => void, check: Check): void {
    const { fail, out, rootNext, linkedIn, generation } = this;
    let state = 0;
    for (let i = 0; i < length; i++) {
      if (++this.work >= CHECK_EVERY) this.spend(check);
      const c = bytes[i]!;
      let next: number;
      for (;;) {
        next = state === 0 ? rootNext[c]! : this.child(state, c);
        if (next !== 0 || state === 0) break;
        // Every state reached is linked below, before its link is followed.
        state = fail[state]!;
      }
      state = next;
      if (state === 0) continue;
      if (linkedIn[state] !== generation) this.link(state, check);
      const longest = out[state]!;
      if (longest > 0) found(i, longest);
    }
  }

  private spend(check: Check): void {
    this.work = 0;
    check();
  }

  private unlink(): void {
    this.generation++;
  }

  private child(node: number, c: number): number {
    if (node === 0) return this.rootNext[c]!;
    const first = this.first[node]!;
    if (first === 0) return 0;
    if (this.label[first] === c) return first;
    return this.more[node] === 0 ? 0 : this.other(node, c);
  }

  private other(node: number, c: number): number {
    const { slots, parent, label } = this;
    const mask = slots.length - 1;
    for (let s = slotOf(node, c, mask); ; s = (s + 1) & mask) {
      const id = slots[s]!;
      if (id === 0) return 0;
      if (parent[id] === node && label[id] === c) return id;
    }
  }

  private grow(node: number, c: number, check: Check): number {
    if (this.nodes === this.capacity) this.resize(this.capacity * 2);
    const id = this.nodes++;
    this.parent[id] = node;
    this.label[id] = c;
    if (node === 0) this.rootNext[c] = id;
    else if (this.first[node] === 0) this.first[node] = id;
    else {
      this.more[node] = 1;
      this.place(id);
      // At most 70 % full, so that a lookup that misses stays short. A larger table cut short by
      // the deadline leaves this one, still usable, for the next try; past 90 % it is made anyway.
      if (++this.hashed * 10 > this.slots.length * 7)
        this.rehash(this.hashed * 10 > this.slots.length * 9 ? () => {} : check);
    }
    this.unlink();
    return id;
  }

  private place(id: number, slots = this.slots): void {
    const mask = slots.length - 1;
    let s = slotOf(this.parent[id]!, this.label[id]!, mask);
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = id;
  }

  private resize(capacity: number): void {
    const bigger = <T extends Int32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const array = make(capacity);
      array.set(old);
      return array;
    };
    this.parent = bigger(this.parent, (n) => new Int32Array(n));
    this.label = bigger(this.label, (n) => new Uint8Array(n));
    this.fail = bigger(this.fail, (n) => new Int32Array(n));
    this.out = bigger(this.out, (n) => new Int32Array(n));
    this.own = bigger(this.own, (n) => new Int32Array(n));
    this.linkedIn = bigger(this.linkedIn, (n) => new Int32Array(n));
    this.first = bigger(this.first, (n) => new Int32Array(n));
    this.more = bigger(this.more, (n) => new Uint8Array(n));
    this.capacity = capacity;
  }

  private rehash(check: Check): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    for (let s = 0; s < old.length; s++) {
      if ((s & 0xffff) === 0) check();
      if (old[s] !== 0) this.place(old[s]!, slots);
    }
    this.slots = slots;
  }
}

/** A slot for (node, byte): the two mixed so that neighbouring nodes spread over the table. */
function slotOf(node: number, c: number, mask: number): number {
  let h = Math.imul(node, 0x9e3779b1) ^ Math.imul(c + 1, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h & mask;
}

// One Aho–Corasick automaton over every form of every secret: a text is scanned once per reading,
// whatever the forms are and however much they share, so redaction costs text + forms + matches.
// Secrets arrive while a run goes on (a step's answer, a rendered header), so patterns are added to
// the trie as they come and the links are remade before the next scan.
//
// A step's answer of 1 MiB makes millions of trie nodes, so a node is a few typed-array entries, not
// an object: its parent, the byte that leads to it, its failure link and `out`, the length of the
// longest pattern that ends there (itself or a suffix of it, through the failure links; 0: none).
// Most nodes of such a trie have one child (a secret's tail shares nothing), so a node's first child
// is kept beside it; the others are found in one open-addressing table keyed by (parent, byte), and
// the root's in a plain table of 256. A chain of first children is allocated in a row: walking a
// long secret reads memory in order instead of one random slot per byte.

/** Called every few thousand steps of work; throws when the deadline has passed. */
export type Check = () => void;

/** How many steps of work go by between two checks of the deadline. */
const CHECK_EVERY = 0x1000;

export class Automaton {
  private capacity = 1024;
  private parent = new Int32Array(this.capacity);
  private label = new Uint8Array(this.capacity);
  private fail = new Int32Array(this.capacity);
  /**
   * The longest pattern ending at this node. Before the links are made, a pattern's own node holds
   * its length (= its depth) and other new nodes 0; afterwards, a node that is not a pattern holds
   * its failure node's value, always less than its depth: so out === depth tells a pattern's node.
   */
  private out = new Int32Array(this.capacity);
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
  /** Links are valid for every node; else `linking` holds a pass that may be resumed. */
  private linked = true;
  private linking: { order: Int32Array; depth: Int32Array; at: number } | undefined;
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
    if (this.out[node] !== length) {
      this.out[node] = length;
      this.count++;
      this.unlink();
    }
  }

  /**
   * Makes the failure links and `out` of every node, in order of depth: each node's link is found
   * from its parent's, so the whole pass costs the summed length of the patterns. Interrupted by
   * `check`, the next call goes on where this one stopped, unless patterns were added in between.
   */
  link(check: Check): void {
    if (this.linked) return;
    const pass = (this.linking ??= this.order(check));
    const { order, depth } = pass;
    const { parent, label, fail, out } = this;
    for (; pass.at < order.length; pass.at++) {
      if (++this.work >= CHECK_EVERY) this.spend(check);
      const node = order[pass.at]!;
      const c = label[node]!;
      let link = 0;
      if (depth[node]! > 1) {
        for (let f = fail[parent[node]!]!; ; f = fail[f]!) {
          const next = this.child(f, c);
          if (next !== 0) {
            link = next;
            break;
          }
          if (f === 0) break;
        }
      }
      fail[node] = link;
      if (out[node] !== depth[node]) out[node] = out[link]!;
    }
    this.linking = undefined;
    this.linked = true;
  }

  /**
   * Scans `bytes[0, length)` and calls `found(end, length)` with the longest pattern ending at each
   * index that ends one. Shorter patterns ending there lie inside it, so for redaction, which hides
   * spans, they add nothing: the work is one step per byte plus the failure links taken, which
   * never outnumber the bytes.
   */
  scan(bytes: Uint8Array, length: number, found: (end: number, length: number) => void, check: Check): void {
    this.link(check);
    const { fail, out, rootNext } = this;
    let state = 0;
    for (let i = 0; i < length; i++) {
      if (++this.work >= CHECK_EVERY) this.spend(check);
      const c = bytes[i]!;
      let next: number;
      for (;;) {
        next = state === 0 ? rootNext[c]! : this.child(state, c);
        if (next !== 0 || state === 0) break;
        state = fail[state]!;
      }
      state = next;
      const longest = out[state]!;
      if (longest > 0) found(i, longest);
    }
  }

  private spend(check: Check): void {
    this.work = 0;
    check();
  }

  private unlink(): void {
    this.linked = false;
    this.linking = undefined;
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
      if (++this.hashed * 10 > this.slots.length * 7) this.rehash(this.hashed * 10 > this.slots.length * 9 ? () => {} : check);
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

  /** The nodes other than the root by depth (a counting sort: a parent is always older than its child). */
  private order(check: Check): { order: Int32Array; depth: Int32Array; at: number } {
    const n = this.nodes;
    const depth = new Int32Array(n);
    let deepest = 0;
    for (let id = 1; id < n; id++) {
      if ((id & 0xffff) === 0) check();
      const d = depth[this.parent[id]!]! + 1;
      depth[id] = d;
      if (d > deepest) deepest = d;
    }
    // starts[d]: where the nodes of depth d begin in `order` (the root, depth 0, is not in it).
    const starts = new Int32Array(deepest + 1);
    for (let id = 1; id < n; id++) starts[depth[id]!]! += 1;
    for (let d = 1, sum = 0; d <= deepest; d++) {
      const count = starts[d]!;
      starts[d] = sum;
      sum += count;
    }
    const order = new Int32Array(n - 1);
    for (let id = 1; id < n; id++) order[starts[depth[id]!]!++] = id;
    return { order, depth, at: 0 };
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

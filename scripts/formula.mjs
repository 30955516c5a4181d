// The Homebrew formula of a release (release.mjs writes it; test/release/formula.test.ts runs its
// `test do` against the real binary with Debian's ruby).

// Homebrew names macOS versions by their major number's name (`depends_on macos:` takes no minor).
const MACOS_NAMES = { 11: 'big_sur', 12: 'monterey', 13: 'ventura', 14: 'sonoma', 15: 'sequoia', 26: 'tahoe' };

/**
 * The least macOS a Mach-O runs on, as its LC_BUILD_VERSION (or LC_VERSION_MIN_MACOSX) says: what
 * its Node was built for (Node 24: 13.5, Node 22: 11.0; BUILDING.md of each line). "13.5".
 */
export function leastMacos(bytes) {
  if (bytes.readUInt32LE(0) !== 0xfeedfacf) throw new Error('not a 64-bit Mach-O');
  let at = 32;
  for (let i = 0; i < bytes.readUInt32LE(16); i++) {
    const [cmd, size] = [bytes.readUInt32LE(at), bytes.readUInt32LE(at + 4)];
    // LC_BUILD_VERSION: platform, then minos as xxxx.yy.zz in nibbles; LC_VERSION_MIN_MACOSX: version first.
    const version = cmd === 0x32 ? bytes.readUInt32LE(at + 12) : cmd === 0x24 ? bytes.readUInt32LE(at + 8) : undefined;
    if (version !== undefined)
      return `${version >>> 16}.${(version >>> 8) & 0xff}${version & 0xff ? `.${version & 0xff}` : ''}`;
    at += size;
  }
  throw new Error('the Mach-O names no least macOS version');
}

/** `depends_on macos:` for a least version: its major's name (13.5 is :ventura, the comment says the rest). */
function dependsOn(least) {
  const name = MACOS_NAMES[Number(least.split('.')[0])];
  if (!name) throw new Error(`no Homebrew name known for macOS ${least}`);
  return `depends_on macos: :${name} # macOS ${least} or later`;
}

/**
 * The formula's text. `arm` and `intel`: the darwin-arm64 and darwin-x64 archives (url, sha256, and
 * the least macOS their binaries run on). The test runs the installed binary: `--version`, then
 * `validate` of a config it writes (nothing leaves the machine).
 */
export function formula({ version, description, homepage, license, arm, intel }) {
  return `# Homebrew formula of webapi-credential ${version}, made by npm run release (scripts/release.mjs).
# The least macOS: ${arm.least} on Apple silicon, ${intel.least} on Intel (what each binary's Node was built for).
class WebapiCredential < Formula
  desc ${JSON.stringify(description)}
  homepage ${JSON.stringify(homepage)}
  version ${JSON.stringify(version)}
  license ${JSON.stringify(license)}

  on_macos do
    on_arm do
      url ${JSON.stringify(arm.url)}
      sha256 ${JSON.stringify(arm.sha256)}
      ${dependsOn(arm.least)}
    end
    on_intel do
      url ${JSON.stringify(intel.url)}
      sha256 ${JSON.stringify(intel.sha256)}
      ${dependsOn(intel.least)}
    end
  end

  def install
    # Signed ad hoc at release (Apple silicon runs no unsigned code): nothing to do but install it.
    bin.install "webapi-credential"
  end

  test do
    # --version names the Node inside and the platform too: "webapi-credential ${version} (node v24.x, darwin-arm64)".
    assert_match(/\\Awebapi-credential #{Regexp.escape(version.to_s)} \\(node v\\d+\\.\\d+\\.\\d+, [a-z]+-[a-z0-9]+\\)$/,
                 shell_output("#{bin}/webapi-credential --version"))
    (testpath/"config.yaml").write <<~YAML
      webAPIProviderConfig:
        method: POST
        url: https://token.example.test/token
        form:
          client_secret: "{{ env.CLIENT_SECRET }}"
        tokenPath: $.access_token
    YAML
    ENV["CLIENT_SECRET"] = "s3cr3t-from-the-formula-test"
    assert_equal "config from --config #{testpath}/config.yaml is valid: POST https://token.example.test/token\\n",
                 shell_output("#{bin}/webapi-credential validate --config #{testpath}/config.yaml")
  end
end
`;
}

export interface Archive {
  url: string;
  sha256: string;
  /** The least macOS its binary runs on, "13.5". */
  least: string;
}
/** The least macOS a 64-bit Mach-O runs on, from its LC_BUILD_VERSION (or LC_VERSION_MIN_MACOSX). */
export function leastMacos(bytes: Buffer): string;
/** The Homebrew formula's text. */
export function formula(options: {
  version: string;
  description: string;
  homepage: string;
  license: string;
  arm: Archive;
  intel: Archive;
}): string;

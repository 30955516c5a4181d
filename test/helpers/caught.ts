/** The error of class `type` that `run` throws; fails the test when it returns or throws another. */
export function caught<T extends Error>(type: abstract new (...args: never[]) => T, run: () => unknown): T {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}, got a result`);
}

/** The error of class `type` that `promise` rejects with; fails the test when it resolves or rejects with another. */
export async function rejected<T extends Error>(
  type: abstract new (...args: never[]) => T,
  promise: Promise<unknown>,
): Promise<T> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}, got a result`);
}

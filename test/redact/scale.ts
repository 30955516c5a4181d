// The sizes the linear-work tests read. Under `npm run test:mutation` (vitest.mutation.config.ts sets
// WEBAPI_CREDENTIAL_MUTATION) each mutant runs instrumented code many times slower, so the texts are
// 16 times smaller there: a quadrupling of the text is still a quadrupling, which is what they check.
export const LINEAR_SIZES: readonly number[] = (process.env['WEBAPI_CREDENTIAL_MUTATION'] ? [1 << 13, 1 << 15, 1 << 17] : [1 << 17, 1 << 19, 1 << 21]);

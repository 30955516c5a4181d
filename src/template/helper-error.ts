// A helper or an expression refused its input: the renderer names the field and the expression.
// Its own module so that jwt.ts (loaded lazily by helpers.ts) needs nothing from helpers.ts.
export class HelperError extends Error {}

/** JSON bodies are small: the longest field (a description) is 10,000 characters. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The limit of routes whose body is short by nature: a sign-in proof, a wallet proof, a name, an
 * amount, a URL, a status, a rating, a 2,000-character message. The longest such body the
 * schemas accept (a proof's 8,192-character state init, or 2,000 characters each written as a
 * 12-byte escaped surrogate pair, as Python's json.dumps does) stays under 32 KiB; a real sign-in
 * proof is under 4 KiB. Refused at the declared length, or as the bytes arrive, before any parse:
 * the unauthenticated sign-in route once took 832 KiB objects of 100,000 keys.
 */
export const SHORT_BODY_LIMIT_BYTES = 32 * 1024;

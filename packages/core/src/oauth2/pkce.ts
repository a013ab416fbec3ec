/** RFC 7636 §4.1: code_verifier = 43*128unreserved. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** The S256 challenge is base64url(SHA-256), 43 characters. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export function isValidCodeVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

export function isValidCodeChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

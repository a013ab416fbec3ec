import { invalidRequest } from '../errors.js';
import { readBodyText } from '../http/body.js';

/**
 * Requires a request without a body (an empty one is accepted, whatever its content type).
 * A non-empty body is `invalid_request` with `hint` as the description: the Auth API takes its
 * inputs from the `Authorization` header, and silently ignoring a body would hide client mistakes
 * such as posting the password as form fields.
 */
export async function requireEmptyBody(request: Request, maxBytes: number, hint: string): Promise<void> {
  const text = await readBodyText(request, maxBytes);
  if (text.length > 0) throw invalidRequest(hint);
}

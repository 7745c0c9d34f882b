/**
 * An error answered to the client as `{"error": message}` with its HTTP status.
 *
 * @remarks Thrown by request handlers; the server turns it into the answer. Its message names the thing, where it
 * came from and what is available — and never a secret.
 * @example
 * ```ts
 * throw new HttpError(404, 'unknown service org.acme.Greter; did you mean org.acme.Greeter?');
 * ```
 */
export class HttpError extends Error {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    message: string,
    /** Extra headers of the answer (`retry-after`). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

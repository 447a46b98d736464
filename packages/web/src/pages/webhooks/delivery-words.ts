/**
 * A delivery attempt's error as the server logs it (`answered 503`, `ECONNREFUSED: …`, `no answer
 * within 5000 ms`), said in words for a person. What it does not recognise is shown as it is.
 */
export function deliveryError(error: string): string {
  const answered = /^answered (\d{3})/.exec(error);
  if (answered) {
    const status = Number(answered[1]);
    if (status >= 300 && status < 400)
      return `Your endpoint answered ${status}, a redirect: redirects are not followed, so give the final address.`;
    if (status === 401 || status === 403)
      return `Your endpoint refused it (${status}): check that it verifies signatures with this webhook's current secret.`;
    if (status >= 500) return `Your endpoint answered ${status}: it had a problem of its own.`;
    return `Your endpoint answered ${status}, not a 2xx success.`;
  }
  const timeout = /^no answer within (\d+) ms/.exec(error);
  if (timeout) return `Your endpoint did not answer within ${Number(timeout[1]) / 1000} s.`;
  if (error.startsWith('refused: ')) {
    const why = error.slice('refused: '.length);
    if (/ENOTFOUND|EAI_AGAIN|did not resolve/.test(why))
      return "Not sent: the endpoint's host name could not be found.";
    return `Not sent: the address is not allowed (${why}).`;
  }
  if (/^ECONNREFUSED\b/.test(error))
    return 'Nothing accepted the connection at that address: is the server up?';
  if (/^(ENOTFOUND|EAI_AGAIN)\b/.test(error)) return "The endpoint's host name could not be found.";
  if (/^(ECONNRESET|EPIPE)\b/.test(error)) return 'The connection was cut before an answer came.';
  if (/^(CERT_|UNABLE_TO_VERIFY|DEPTH_ZERO|SELF_SIGNED|ERR_TLS)/.test(error))
    return "The endpoint's HTTPS certificate was not accepted.";
  return error;
}

/** One HTTP answer: status, raw text, parsed JSON (when it is JSON) and headers. */
export interface Answer<T = unknown> {
  status: number;
  text: string;
  json: T;
  headers: Headers;
}

/** A single request with fetch; `json` is sent as the body with content-type application/json. */
export async function call<T = unknown>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, text, json: json as T, headers: res.headers };
}

/** Like call() but throws, with the answer, unless the status is `expected`. */
export async function expectCall<T = unknown>(
  expected: number,
  url: string,
  init: Parameters<typeof call>[1] = {},
): Promise<Answer<T>> {
  const answer = await call<T>(url, init);
  if (answer.status !== expected)
    throw new Error(
      `${init.method ?? 'GET'} ${url}: expected ${expected}, got ${answer.status}: ${answer.text.slice(0, 500)}`,
    );
  return answer;
}

export interface ApiReply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A tiny fetch wrapper for tests: JSON in, JSON out, the key as a bearer. */
export function apiClient(baseUrl: string, key?: string) {
  return async function call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiReply<T>> {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: tests assert on the raw text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}

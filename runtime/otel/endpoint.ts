/**
 * Why an organization's OTLP endpoint cannot be used, or undefined: an http(s) URL without credentials in it. Its
 * own module, free of the OpenTelemetry SDK, so that the operator CLI (`admin otel set`) checks it without loading it.
 */
export function otlpEndpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https endpoints are exported to';
  if (url.username || url.password) return 'credentials in the URL are not allowed: pass them as headers';
  return undefined;
}

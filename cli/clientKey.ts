import { createPrivateKey, type KeyObject } from 'node:crypto';

/** The JWS algorithms a client key may sign its assertions with (RFC 7518), by key type. */
const ALGORITHMS: Record<string, string[]> = {
  rsa: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
  'rsa-pss': ['PS256', 'PS384', 'PS512'],
  'ec:prime256v1': ['ES256'],
  'ec:secp384r1': ['ES384'],
  'ec:secp521r1': ['ES512'],
  ed25519: ['EdDSA'],
};

/**
 * An OAuth client's private key for private_key_jwt (RFC 7523), as an operator gives it: PEM (PKCS#8, PKCS#1 or
 * SEC1) or a private JWK. It is stored as PKCS#8 PEM, the form the token request signs with, with its algorithm:
 * the one given, which must suit the key, else the usual one for the key (RS256, ES256/384/512, EdDSA).
 * Errors never quote the key.
 */
export function readClientKey(text: string, alg?: string): { pem: string; alg: string } {
  let key: KeyObject;
  try {
    const trimmed = text.trim();
    key = trimmed.startsWith('{')
      ? createPrivateKey({ key: JSON.parse(trimmed) as never, format: 'jwk' })
      : createPrivateKey(trimmed);
  } catch {
    throw new Error('the private key is not a private key in PEM (PKCS#8, PKCS#1 or SEC1) or JWK form');
  }
  const type =
    key.asymmetricKeyType === 'ec' ? `ec:${key.asymmetricKeyDetails?.namedCurve}` : String(key.asymmetricKeyType);
  const suitable = ALGORITHMS[type];
  if (!suitable)
    throw new Error(`a ${type} key cannot sign client assertions; use an RSA, EC (P-256, P-384, P-521) or Ed25519 key`);
  if (alg !== undefined && !suitable.includes(alg))
    throw new Error(`--signing-alg ${alg} does not suit this ${type} key; use one of ${suitable.join(', ')}`);
  return { pem: key.export({ type: 'pkcs8', format: 'pem' }).toString(), alg: alg ?? suitable[0] };
}

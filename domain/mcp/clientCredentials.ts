import { createPrivateKey } from 'node:crypto';
import {
  ClientCredentialsProvider,
  createPrivateKeyJwtAuth,
  PrivateKeyJwtProvider,
} from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { sameUrl } from './discovery.js';
import type { SavedServer } from '../catalog/server.js';

/**
 * The OAuth client of a machine-to-machine server (RFC 6749 §4.4, client_credentials), as the SDK's token request
 * wants it. The operator's client authenticates with its secret (HTTP Basic, or the form body when the authorization
 * server's metadata lists only client_secret_post: the SDK picks from the metadata) or with a JWT signed by its
 * private key (RFC 7523 §2.2, private_key_jwt). The scope is the server's saved scopes, omitted when there are none.
 */
export function machineClient(
  server: SavedServer,
  authorizationServerUrl: string,
  metadata: AuthorizationServerMetadata | undefined,
): OAuthClientProvider {
  const clientId = server.oauthClientId ?? '';
  const scope = server.oauthScopes.length ? server.oauthScopes.join(' ') : undefined;
  if (server.privateKey && server.signingAlg) {
    // As a JWK: the SDK reads PEM only for RSA and EC keys, a JWK of any kind (Ed25519 too).
    const privateKey = createPrivateKey(server.privateKey).export({ format: 'jwk' }) as Record<string, unknown>;
    const client: OAuthClientProvider = new PrivateKeyJwtProvider({
      clientId,
      privateKey,
      algorithm: server.signingAlg,
      expectedIssuer: authorizationServerUrl,
      scope,
    });
    // The SDK's provider takes the assertion's audience from the metadata unchecked; this one is checked.
    client.addClientAuthentication = createPrivateKeyJwtAuth({
      issuer: clientId,
      subject: clientId,
      privateKey,
      alg: server.signingAlg,
      audience: assertionAudience(authorizationServerUrl, metadata),
    });
    return client;
  }
  return new ClientCredentialsProvider({
    clientId,
    clientSecret: server.clientSecret ?? '',
    expectedIssuer: authorizationServerUrl,
    scope,
  });
}

/**
 * The `aud` of the client assertion: the authorization server's issuer identifier. The metadata's `issuer` is used
 * only when it names the authorization server Runway pinned (RFC 8414 §3.3 says it must): a metadata document
 * claiming another issuer would otherwise get an assertion it could replay at that other server.
 */
export function assertionAudience(
  authorizationServerUrl: string,
  metadata: AuthorizationServerMetadata | undefined,
): string {
  const issuer = metadata?.issuer;
  return issuer && sameUrl(issuer, authorizationServerUrl) ? issuer : authorizationServerUrl;
}

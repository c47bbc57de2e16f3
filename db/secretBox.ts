/**
 * Secrets at rest (saved headers and env, OAuth tokens, provider and per-run model keys, host header values) are
 * sealed and opened by the keyring; SecretBox is the name the rest of the code knows it by.
 */
export { Keyring as SecretBox } from './keyring.js';

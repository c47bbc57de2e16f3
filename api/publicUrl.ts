import type { Request } from 'express';
import type { Config } from '../runtime/config.js';

/** The base URL of links the API hands out (chatbox links, upload URLs): PUBLIC_URL, else the request's origin. */
export function publicOrigin(config: Pick<Config, 'PUBLIC_URL'>, req: Pick<Request, 'protocol' | 'get'>): string {
  return config.PUBLIC_URL?.replace(/\/$/, '') ?? `${req.protocol}://${req.get('host')}`;
}

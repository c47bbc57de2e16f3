import express, { type Request, type Response } from 'express';
import { receiveUpload } from '../../activities/ingest/uploads.js';
import type { RouteDeps } from '../app.js';
import { ApiError } from '../errors.js';
import { defineRoute } from '../route.js';
import { INGEST_BODY_LIMIT, uploadBody, uploadQuery, uploadReply } from '../schemas/ingest.js';

/**
 * Where an upload URL points, below the service's public origin. The token rides in the query string, which the
 * request log leaves out (it logs the path), so a still-usable capability never lands in our logs.
 */
export const uploadPath = (token: string) => `/api/v1/eval-ingest/uploads?token=${encodeURIComponent(token)}`;

const rawBody = express.raw({ type: () => true, limit: INGEST_BODY_LIMIT });

/** The request body as bytes, whatever its content type; over the limit it is a 400 BODY_TOO_LARGE. */
function readBlob(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    rawBody(req, res, (error?: unknown) => (error ? reject(error) : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0))));
  });
}

/**
 * The target of the URLs artifacts/upload-url mints. No key: the unguessable token is the capability, valid once
 * and for a short time. A URL never minted (forged, mistyped), one past its time and one already used each get
 * their own 4xx and reason.
 */
export function ingestUploadRoutes({ sql }: RouteDeps) {
  const upload = (method: 'post' | 'put') =>
    defineRoute({
      method,
      path: '/eval-ingest/uploads',
      auth: false,
      tag: 'Eval ingest',
      summary: `Upload an artifact to a minted URL (${method.toUpperCase()} the raw bytes; no key)`,
      description: 'Replies { storageId }; a URL minted with a format also parses the artifact into a finalized run and adds its ids and summary. Sending the same bytes again returns the same reply.',
      query: uploadQuery,
      body: uploadBody,
      response: uploadReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT'],
      async handler({ query, req, res }) {
        // The MCPJam SDK, which uploads here, reads only an `error` string from a failed reply.
        res.locals.errorAsString = true;
        const content = await readBlob(req, res);
        const outcome = await receiveUpload(sql, query.token, { content, contentType: req.get('content-type')?.slice(0, 200) ?? null });
        switch (outcome.kind) {
          case 'stored':
            return outcome.reply;
          case 'unknown':
            throw new ApiError('NOT_FOUND', 'this upload URL was never issued (check that it was copied whole); mint one with artifacts/upload-url', { reason: 'UPLOAD_URL_UNKNOWN' });
          case 'expired':
            throw new ApiError('FORBIDDEN', `this upload URL expired at ${outcome.expiredAt.toISOString()}; mint a new one with artifacts/upload-url`, { reason: 'UPLOAD_URL_EXPIRED', expiredAt: outcome.expiredAt.getTime() });
          case 'used':
            throw new ApiError('CONFLICT', 'this upload URL was already used for another upload; each URL takes one artifact, mint a new one', { reason: 'UPLOAD_URL_ALREADY_USED', usedAt: outcome.usedAt.getTime() });
        }
      },
    });
  return [upload('post'), upload('put')];
}

import express, { type Request, type Response } from 'express';
import type { UploadRefusal } from '../../domain/ingest/uploads.js';
import { formatCount, limits } from '../../domain/limits.js';
import type { UploadArtifact } from '../../domain/useCases/ingest/uploadArtifact.js';
import { ApiError } from '../errors.js';
import type { AddressLimit } from '../rateLimit.js';
import { defineRoute } from '../route.js';
import { INGEST_BODY_LIMIT, uploadBody, uploadQuery, uploadReply } from '../schemas/ingest.js';

/**
 * Where an upload URL points, below the service's public origin. The token rides in the query string, which the
 * request log leaves out (it logs the path), so a still-usable capability never lands in our logs.
 */
export const uploadPath = (token: string) => `/api/v1/eval-ingest/uploads?token=${encodeURIComponent(token)}`;

// Never inflated: encoded bodies are refused before this reads anything (refuseEncodedBody).
const rawBody = express.raw({ type: () => true, limit: INGEST_BODY_LIMIT, inflate: false });

/** The request body as bytes, whatever its content type; over the limit it is a 400 BODY_TOO_LARGE. */
function readBlob(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    rawBody(req, res, (error?: unknown) =>
      error ? reject(error) : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)),
    );
  });
}

/** A compressed body is refused, not inflated: a few kilobytes could otherwise cost the service megabytes of work. */
function refuseEncodedBody(req: Request): void {
  const encoding = req.get('content-encoding')?.trim().slice(0, 100) ?? '';
  if (encoding === '' || encoding.toLowerCase() === 'identity') return;
  throw new ApiError(
    'VALIDATION_ERROR',
    `Content-Encoding "${encoding}" is not accepted on upload URLs: send the artifact uncompressed (at most ${INGEST_BODY_LIMIT / 1024 / 1024} MiB)`,
    {
      reason: 'CONTENT_ENCODING_NOT_ACCEPTED',
      contentEncoding: encoding,
    },
  );
}

function refusal(outcome: UploadRefusal): ApiError {
  switch (outcome.kind) {
    case 'unknown':
      return new ApiError(
        'NOT_FOUND',
        'this upload URL was never issued (check that it was copied whole); mint one with artifacts/upload-url',
        { reason: 'UPLOAD_URL_UNKNOWN' },
      );
    case 'revoked':
      return new ApiError(
        'FORBIDDEN',
        'the API key that minted this upload URL was revoked (or no longer acts for its organization), and the URL with it; mint a new one with a valid key',
        { reason: 'UPLOAD_URL_REVOKED' },
      );
    case 'expired':
      return new ApiError(
        'FORBIDDEN',
        `this upload URL expired at ${outcome.expiredAt.toISOString()}; mint a new one with artifacts/upload-url`,
        { reason: 'UPLOAD_URL_EXPIRED', expiredAt: outcome.expiredAt.getTime() },
      );
    case 'used':
      return new ApiError(
        'CONFLICT',
        'this upload URL was already used for another upload; each URL takes one artifact, mint a new one',
        { reason: 'UPLOAD_URL_ALREADY_USED', usedAt: outcome.usedAt.getTime() },
      );
  }
}

/**
 * The target of the URLs artifacts/upload-url mints. No key: the unguessable token is the capability, valid once,
 * for a short time, and only while the key that minted it is. A URL never minted (forged, mistyped), one past its
 * time, one whose key was revoked and one already used each get their own 4xx and reason.
 *
 * Anyone can send here, so nothing is spent on a request before it proves to be an upload: the address's
 * rate-limit bucket and the token are checked before a byte of the body is read, and compressed bodies are
 * refused rather than inflated.
 */
export function ingestUploadRoutes(deps: {
  uploadArtifact: UploadArtifact;
  /** the per-address limit on work without a usable key */
  addressLimit: AddressLimit;
}) {
  const { uploadArtifact, addressLimit } = deps;
  const upload = (method: 'post' | 'put') =>
    defineRoute({
      method,
      path: '/eval-ingest/uploads',
      auth: false,
      tag: 'Eval ingest',
      summary: `Upload an artifact to a minted URL (${method.toUpperCase()} the raw bytes; no key)`,
      description:
        'Replies { storageId }; a URL minted with a format also parses the artifact into a finalized run and adds its ids and summary. Sending the same bytes again returns the same reply. ' +
        `An artifact holds at most ${formatCount(limits.resultsPerArtifact)} tests (past it: 400 TOO_MANY_RESULTS) and is held to the bounds of ingested runs and suites. ` +
        'The body is sent uncompressed (a Content-Encoding other than identity is a 400). Requests count against the per-address limit on work without a key (429 with Retry-After).',
      query: uploadQuery,
      body: uploadBody,
      response: uploadReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'RATE_LIMITED'],
      async handler({ query, req, res }) {
        // The MCPJam SDK, which uploads here, reads only an `error` string from a failed reply.
        res.locals.errorAsString = true;
        // Until the body is wanted, a refusal also closes the connection, so the unread body is not taken in after it.
        res.set('Connection', 'close');
        refuseEncodedBody(req);
        await addressLimit.take(req, res);
        const outcome = await uploadArtifact({
          token: query.token,
          // Called once the token names a slot that takes the upload: only then is the body read.
          receive: async () => {
            res.removeHeader('Connection');
            const content = await readBlob(req, res);
            return { content, contentType: req.get('content-type')?.slice(0, 200) ?? null };
          },
        });
        if (outcome.kind === 'stored') return outcome.reply;
        throw refusal(outcome);
      },
    });
  return [upload('post'), upload('put')];
}

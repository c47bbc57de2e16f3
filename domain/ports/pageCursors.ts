/**
 * Opaque page cursors, bound to the list they came from (api/cursor.ts CursorCodec is one): a use case that pages
 * decodes the cursor its caller was given and encodes the next one.
 */
export interface PageCursors {
  encode(scope: string, position: unknown): string;
  /** The position a cursor of this scope holds; anything else is refused (a VALIDATION_ERROR). */
  decode<T>(scope: string, cursor: string): T;
}

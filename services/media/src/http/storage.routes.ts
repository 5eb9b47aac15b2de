import { Router } from 'express';
import { asyncHandler } from '@social/http';
import { FILE_CACHE_CONTROL, type StorageUseCases } from '../domain/storage.use-cases';

/** The storage host (no API key, no internal token: every address carries its own signature). */
export function storageRoutes(storage: StorageUseCases): Router {
  const r = Router();
  r.put(
    '/storage/uploads/:mediaId',
    asyncHandler(async (req, res) => {
      const len = req.headers['content-length'];
      let result;
      try {
        result = await storage.receiveUpload({
          mediaId: req.params['mediaId']!,
          query: req.query as Record<string, unknown>,
          contentType: req.headers['content-type'],
          contentLength: len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined,
          body: req,
        });
      } catch (err) {
        // The client may still be sending: answer now and close, rather than read the rest.
        if (!req.readableEnded) res.setHeader('Connection', 'close');
        throw err;
      }
      if (result) {
        // To the store's presigned address. A client that sent `Expect: 100-continue` sent no body; one
        // that did not is drained by Node after this answer (not closed: a proxy in front, the gateway,
        // would take a connection closed under its request for a failed upstream and answer 503).
        res.status(307).setHeader('Location', result.redirect).setHeader('Cache-Control', 'no-store').end();
        return;
      }
      res.status(201).type('text/plain').send('Created');
    }),
  );
  r.get(
    '/storage/files/:mediaId/:variant(original|preview)',
    asyncHandler(async (req, res) => {
      const file = await storage.openFile(
        req.params['mediaId']!,
        req.params['variant'] as 'original' | 'preview',
        req.query as Record<string, unknown>,
        req.headers.range,
      );
      if ('redirect' in file) {
        res.status(307).setHeader('Location', file.redirect).setHeader('Cache-Control', 'no-store').end();
        return;
      }
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('Cache-Control', FILE_CACHE_CONTROL);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if ('unsatisfiable' in file) {
        res.status(416).setHeader('Content-Range', `bytes */${file.unsatisfiable}`).end();
        return;
      }
      res.status(file.partial ? 206 : 200);
      res.setHeader('Content-Type', file.contentType);
      res.setHeader('Content-Length', String(file.size === 0 ? 0 : file.end - file.start + 1));
      if (file.partial) res.setHeader('Content-Range', `bytes ${file.start}-${file.end}/${file.size}`);
      file.stream.on('error', (err) => res.destroy(err));
      file.stream.pipe(res);
    }),
  );
  return r;
}

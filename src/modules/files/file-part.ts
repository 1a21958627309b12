import type { Multipart } from '@fastify/multipart';
import { badRequest, payloadTooLarge } from '../../errors/catalogue.js';
import { multipartError } from './files.service.js';

const MIB = 1024 * 1024;

/**
 * The one part `file` of a multipart body, read into memory: the uploads that are read, not stored (an
 * XLSForm, an import's workbook or CSV). Past `maxBytes` (the multipart plugin's fileSize, registered
 * by the route's plugin) 413; any other part is named in one 400 with a missing `file`.
 */
export async function readFilePart(
  parts: AsyncIterable<Multipart>,
  maxBytes: number,
): Promise<{ bytes: Buffer; fileName: string }> {
  let upload: { bytes: Buffer; fileName: string } | undefined;
  const problems: string[] = [];
  try {
    for await (const part of parts) {
      if (part.type === 'field' || part.fieldname !== 'file') {
        if (part.type === 'file') part.file.resume();
        problems.push(`property ${part.fieldname} should not exist`);
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) chunks.push(chunk as Buffer);
      if (part.file.truncated) throw payloadTooLarge(`file must not be larger than ${maxBytes / MIB} MiB`);
      upload = { bytes: Buffer.concat(chunks), fileName: part.filename };
    }
  } catch (err) {
    throw multipartError(err);
  }
  if (!upload) problems.unshift('file is required');
  if (problems.length > 0) throw badRequest(...problems);
  return upload!;
}

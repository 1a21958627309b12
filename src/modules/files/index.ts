/** What other modules and the entry points may use of the files module (docs/architecture.md, "Module order"). */
export { attachmentBytes, findAttachment, storageKeysUnder } from './files.repo.js';
export { attachmentRoutes } from './files.routes.js';
export { multipartError } from './files.service.js';
export { readFilePart } from './file-part.js';

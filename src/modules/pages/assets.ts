import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
};

export interface Asset {
  /** `form.3f2a9c1b.js`: the name carries the content's hash, so it can be cached for good. */
  name: string;
  type: string;
  body: Buffer;
}

/** Modules the pages run as the service does, served under their own names (form-expressions.js). */
const SHARED: Record<string, URL> = {
  'form-expressions.js': new URL('../../lib/form-expressions.js', import.meta.url),
};

/**
 * The pages' stylesheet and scripts, read once from ./assets as they are (no build step). `url(name)`
 * is where a page links one; `byName` is what the asset route serves.
 */
export class Assets {
  private readonly urls = new Map<string, string>();
  private readonly byFile = new Map<string, Asset>();
  readonly byName = new Map<string, Asset>();

  constructor(folder = new URL('./assets/', import.meta.url), shared = SHARED) {
    const files = readdirSync(folder).map((file) => [file, new URL(file, folder)] as const);
    for (const [file, url] of [...files, ...Object.entries(shared)]) {
      const extension = file.split('.').pop()!;
      const type = TYPES[extension];
      if (!type) continue;
      const body = readFileSync(url);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
      const name = file.replace(new RegExp(`\\.${extension}$`), `.${hash}.${extension}`);
      this.byName.set(name, { name, type, body });
      this.byFile.set(file, { name: file, type, body });
      this.urls.set(file, `/assets/${name}`);
    }
  }

  url(file: string): string {
    const url = this.urls.get(file);
    if (!url) throw new Error(`no asset ${file}`);
    return url;
  }

  /** A file under its own name, for what must keep one address across versions (a service worker). */
  unversioned(file: string): Asset {
    const asset = this.byFile.get(file);
    if (!asset) throw new Error(`no asset ${file}`);
    return asset;
  }
}

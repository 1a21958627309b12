import type { Config } from '../../config.js';

/** The donors' page of a shared report (the pages module serves `/r/:token`); no token, no URL. */
export function shareUrl(config: Pick<Config, 'appUrl'>, token: string): string;
export function shareUrl(config: Pick<Config, 'appUrl'>, token: string | null): string | null;
export function shareUrl(config: Pick<Config, 'appUrl'>, token: string | null): string | null {
  return token === null ? null : `${config.appUrl}/r/${token}`;
}

/**
 * The file browser view (MCP Apps): `list_files` links to it, so a host that renders views
 * shows the listing as a clickable folder tree that opens files with `read_file`. The HTML is
 * built from `src/` by `npm run build:views` and committed; it loads nothing from the network,
 * so it declares no CSP domains and hosts apply their most restrictive policy.
 */
import { defineApp, type ResourceDefinition } from '../../../src/index.ts';

export const FILE_BROWSER_URI = 'ui://filesystem/file-browser';

/** The view's resource definition (read from the built HTML once, at start-up). */
export function fileBrowserView(): ResourceDefinition {
  return defineApp({
    uri: FILE_BROWSER_URI,
    name: 'file-browser',
    title: 'File browser',
    description: 'Browse the workspace: open folders and read files (calls list_files and read_file)',
    file: new URL('./file-browser.html', import.meta.url),
    prefersBorder: true,
  });
}

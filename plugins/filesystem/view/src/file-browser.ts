/// <reference lib="dom" />
/**
 * The filesystem plugin's view (MCP Apps): shows the listing a `list_files` call returned,
 * opens folders with `list_files` and files with `read_file`, both called through the host
 * (`App.callServerTool`). Built into one self-contained HTML file by scripts/build-views.ts.
 * Every name and every file's content goes into the page as text, never as HTML.
 */
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';

interface Entry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
}
interface Listing {
  path: string;
  entries: Entry[];
  truncated: boolean;
}
interface FileRead {
  path: string;
  content: string;
  size: number;
}
interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const pathLabel = $<HTMLSpanElement>('path');
const up = $<HTMLButtonElement>('up');
const status = $<HTMLParagraphElement>('status');
const list = $<HTMLUListElement>('entries');
const fileBox = $<HTMLElement>('file');
const fileName = $<HTMLElement>('file-name');
const fileSize = $<HTMLElement>('file-size');
const content = $<HTMLPreElement>('content');

let current = '.';

function join(folder: string, name: string): string {
  return folder === '.' || folder === '' ? name : `${folder}/${name}`;
}

function parent(folder: string): string {
  const cut = folder.lastIndexOf('/');
  return cut <= 0 ? '.' : folder.slice(0, cut);
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function showStatus(text: string, error = false): void {
  status.textContent = text;
  status.className = error ? 'error' : 'muted';
  status.hidden = text === '';
}

function errorText(result: ToolResult): string {
  return result.content?.find((c) => c.type === 'text')?.text ?? 'The call failed';
}

function renderListing(listing: Listing): void {
  current = listing.path || '.';
  pathLabel.textContent = current === '.' ? '/ (workspace root)' : `/${current}`;
  up.hidden = current === '.';
  list.replaceChildren(
    ...listing.entries.map((entry) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.type = entry.type;
      button.dataset.name = entry.name;
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = entry.type === 'directory' ? `${entry.name}/` : entry.name;
      const size = document.createElement('span');
      size.className = 'size';
      size.textContent = entry.type === 'file' ? formatSize(entry.size) : entry.type;
      button.append(name, size);
      if (entry.type === 'directory')
        button.addEventListener('click', () => void openFolder(join(current, entry.name)));
      else if (entry.type === 'file')
        button.addEventListener('click', () => void openFile(join(current, entry.name)));
      else button.disabled = true;
      item.append(button);
      return item;
    }),
  );
  list.hidden = listing.entries.length === 0;
  showStatus(
    listing.entries.length === 0
      ? 'This folder is empty.'
      : listing.truncated
        ? 'Only the first entries are shown.'
        : '',
  );
}

function isListing(value: unknown): value is Listing {
  return typeof value === 'object' && value !== null && Array.isArray((value as Listing).entries);
}

function showResult(result: ToolResult): void {
  if (result.isError) showStatus(errorText(result), true);
  else if (isListing(result.structuredContent)) renderListing(result.structuredContent);
  else showStatus('The tool returned no listing.', true);
}

const app = new App({ name: 'mcp-toolkit file browser', version: '1.0.0' }, {}, { autoResize: true });

async function openFolder(path: string): Promise<void> {
  showStatus(`Opening ${path}…`);
  try {
    showResult((await app.callServerTool({ name: 'list_files', arguments: { path } })) as ToolResult);
  } catch (err) {
    showStatus(`Could not list ${path}: ${(err as Error).message}`, true);
  }
}

async function openFile(path: string): Promise<void> {
  showStatus(`Opening ${path}…`);
  try {
    const result = (await app.callServerTool({ name: 'read_file', arguments: { path } })) as ToolResult;
    if (result.isError) return showStatus(errorText(result), true);
    const file = result.structuredContent as FileRead;
    fileName.textContent = file.path;
    fileSize.textContent = ` ${formatSize(file.size)} `;
    content.textContent = file.content;
    fileBox.hidden = false;
    showStatus('');
  } catch (err) {
    showStatus(`Could not open ${path}: ${(err as Error).message}`, true);
  }
}

up.addEventListener('click', () => void openFolder(parent(current)));
$<HTMLButtonElement>('close').addEventListener('click', () => {
  fileBox.hidden = true;
});

function applyHost(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

app.ontoolinput = ({ arguments: args }) => {
  const path = typeof args?.path === 'string' ? args.path : '.';
  showStatus(`Listing ${path}…`);
};
app.ontoolresult = (result) => showResult(result as ToolResult);
app.onhostcontextchanged = (context) => applyHost(context);

app.connect().then(
  () => applyHost(app.getHostContext()),
  (err: unknown) => showStatus(`Could not reach the host: ${(err as Error).message}`, true),
);

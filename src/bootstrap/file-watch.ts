import { watch, type FSWatcher } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface FileWatch {
  close(): void;
}

/**
 * Calls `onChange` (once per burst, after `debounceMs` of quiet) when anything changes in the
 * folders holding `paths`. Folders, not the files: renewals replace files by swapping symlinks
 * (certbot's live/ links, a Kubernetes secret's `..data` link), and a watch on a file follows the
 * inode it first saw, so it would miss every renewal after the first. The watches never keep the
 * process alive; a folder that cannot be watched is reported through `onError`.
 */
export function watchFolders(paths: string[], debounceMs: number, onChange: () => void, onError: (folder: string, error: Error) => void): FileWatch {
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
    timer.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const folder of new Set(paths.map((path) => dirname(resolve(path))))) {
    try {
      const watcher = watch(folder, { persistent: false }, changed);
      watcher.on('error', (error) => onError(folder, error));
      watchers.push(watcher);
    } catch (error) {
      onError(folder, error as Error);
    }
  }
  return {
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

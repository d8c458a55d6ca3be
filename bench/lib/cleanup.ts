/**
 * Everything a benchmark creates (namespaces, processes, cgroups, temporary folders) registers its
 * removal here. Removals are synchronous, so they also run from a signal or `exit` handler; each
 * runs once, newest first.
 */
const tasks: { name: string; run: () => void }[] = [];

export function onCleanup(name: string, run: () => void): () => void {
  const task = { name, run };
  tasks.push(task);
  return () => {
    const i = tasks.indexOf(task);
    if (i < 0) return;
    tasks.splice(i, 1);
    try {
      task.run();
    } catch (err) {
      console.error(`cleanup ${name} failed: ${(err as Error).message}`);
    }
  };
}

export function cleanupAll() {
  while (tasks.length > 0) {
    const task = tasks.pop()!;
    try {
      task.run();
    } catch (err) {
      console.error(`cleanup ${task.name} failed: ${(err as Error).message}`);
    }
  }
}

let installed = false;
export function installCleanupHandlers() {
  if (installed) return;
  installed = true;
  process.on('exit', cleanupAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}: removing what it created`);
      cleanupAll();
      process.exit(130);
    });
  }
}

// Preloaded (NODE_OPTIONS=--import) by scripts/node24.sh only, into Node 24 and every process it
// starts: node_modules/better-sqlite3 holds the Node 20 build, so when a Node of the ABI the
// Node 24 build was made for opens that addon, it gets the Node 24 build instead. A Node 20
// child (process.versions.modules differs) opens the files as they are.
const { IPFE_NODE24_ADDON: addon, IPFE_NODE24_ABI: abi } = process.env;

if (addon && process.versions.modules === abi) {
  const dlopen = process.dlopen;
  const betterSqlite3 = /[\\/]better-sqlite3[\\/]build[\\/]Release[\\/]better_sqlite3\.node$/;
  process.dlopen = (module, filename, ...rest) =>
    dlopen.call(process, module, betterSqlite3.test(filename) ? addon : filename, ...rest);
}

// The plugins whose tools and event types the catalog covers, each configured as an
// integrator would, inside a scratch directory so nothing depends on this machine.
export async function catalogPlugins(_scratch) {
  return [];
}

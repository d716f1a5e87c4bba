import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import semver from 'semver';

/**
 * `npm ci` must install cleanly on the oldest Node the project supports: no EBADENGINE warning,
 * and no install script that the project has not decided about. Both read package-lock.json,
 * which is exactly what `npm ci` installs (every platform's optional packages included).
 */

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
}

const readJson = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const manifest = readJson('package.json') as { engines: { node: string }; allowScripts?: Record<string, boolean>; scarfSettings?: { enabled?: boolean } };
const locked = Object.entries((readJson('package-lock.json') as { packages: Record<string, LockedPackage> }).packages).filter(([path]) => path !== '');

/** "node_modules/a/node_modules/@b/c" -> "@b/c" */
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('installing the dependencies', () => {
  it('every locked package admits the oldest Node named in package.json (no EBADENGINE)', () => {
    const oldest = semver.minVersion(manifest.engines.node)!.version;
    expect(oldest).to.equal('20.19.0');
    // npm's own engine check: semver.satisfies(node, range, { includePrerelease: true }).
    const refusing = locked
      .map(([path, pkg]) => ({ name: nameOf(path), version: pkg.version, node: Array.isArray(pkg.engines) ? undefined : pkg.engines?.node }))
      .filter(({ node }) => node !== undefined && !semver.satisfies(oldest, node, { includePrerelease: true }));
    expect(refusing, `packages that refuse Node ${oldest}`).to.deep.equal([]);
  });

  it('every install script is allowed or denied in allowScripts (no install-scripts warning)', () => {
    const policy = manifest.allowScripts ?? {};
    const covered = (name: string, version: string | undefined) => name in policy || `${name}@${version}` in policy;
    const unreviewed = locked.filter(([path, pkg]) => pkg.hasInstallScript && !covered(nameOf(path), pkg.version)).map(([path]) => nameOf(path));
    expect(unreviewed).to.deep.equal([]);
  });

  it("swagger-ui-dist's analytics (@scarf/scarf) never run, whichever npm installs", () => {
    expect(manifest.allowScripts?.['@scarf/scarf']).to.equal(false);
    // npm before 11 ignores allowScripts and runs every install script; scarf reads this opt-out.
    expect(manifest.scarfSettings?.enabled).to.equal(false);
  });
});

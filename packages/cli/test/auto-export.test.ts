import { describe, expect, it } from 'vitest';
import { api, useCliServer, vss, vssJson } from './support.js';

const server = useCliServer();

const run = (args: string[]) => vss(args, { env: server.env });
const presetOf = async () => (await api(server, 'GET', `/v1/projects/${server.projectId}/auto-export`)).data;

/** `field  value` lines as an object. */
const fields = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trimEnd()
      .split('\n')
      .map((l) => {
        const [k, ...v] = l.split(/\s{2,}/);
        return [k, v.join('  ')];
      }),
  );

describe('vss auto-export', () => {
  it("prints the API key's project's preset, never set: off, with the export's defaults", async () => {
    const r = await run(['auto-export', 'get']);
    expect(r.code, r.stderr).toBe(0);
    expect(fields(r.stdout)).toEqual({
      enabled: 'no',
      format: 'mp4',
      layout: 'grid',
      orientation: 'landscape',
      resolution: '720p',
      names: 'true',
      keep_gaps: 'false',
      updated_at: 'never set',
    });
    expect(await vssJson(server, ['auto-export', 'get'])).toEqual({
      enabled: false,
      options: {},
      updated_at: null,
    });
  });

  it('turns it on with the options the flags name, changes one, turns it off keeping them', async () => {
    const on = await run([
      'auto-export',
      'set',
      '--project',
      server.projectId,
      '--enable',
      '--layout',
      'speaker',
      '--orientation',
      'vertical',
      '--resolution',
      '1080p',
      '--no-names',
      '--keep-gaps',
    ]);
    expect(on.code, on.stderr).toBe(0);
    expect(fields(on.stdout)).toMatchObject({
      enabled: 'yes: every session of the project is exported once its recording is ready',
      format: 'mp4',
      layout: 'speaker',
      orientation: 'vertical',
      resolution: '1080p',
      names: 'false',
      keep_gaps: 'true',
    });
    const options = {
      layout: 'speaker',
      orientation: 'vertical',
      resolution: '1080p',
      names: false,
      keep_gaps: true,
    };
    expect(await presetOf()).toMatchObject({ enabled: true, options });

    // One flag changes one option; the rest stays.
    const m4a = await vssJson(server, ['auto-export', 'set', '--format', 'm4a']);
    expect(m4a).toMatchObject({ enabled: true, options: { ...options, format: 'm4a' } });
    const off = await vssJson(server, ['auto-export', 'set', '--disable']);
    expect(off).toMatchObject({ enabled: false, options: { ...options, format: 'm4a' } });
    expect(await presetOf()).toEqual(off);
    expect((await vssJson(server, ['auto-export', 'set', '--enable', '--names'])).options.names).toBe(true);
  });

  it('refuses bad flags before asking the server, and says what the server refused', async () => {
    const before = await presetOf();
    const both = await run(['auto-export', 'set', '--enable', '--disable']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--enable or --disable, not both/);
    const avi = await run(['auto-export', 'set', '--format', 'avi']);
    expect(avi.code).toBe(2);
    expect(avi.stderr).toMatch(/--format.*avi.*mp4, m4a|Allowed choices are mp4, m4a/);
    const other = await run(['auto-export', 'get', '--project', '00000000-0000-4000-8000-000000000000']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/project not found/);
    expect(await presetOf()).toEqual(before);
  });
});

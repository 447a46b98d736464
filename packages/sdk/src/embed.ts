/**
 * The prebuilt room of `/embed/{projectId}`, for an iframe in another site: its credential comes
 * in the address's fragment, which browsers never send to a server, and is taken out of the
 * address at once (a page framed elsewhere must not keep it where a reload or a copied link shows it):
 *
 *   #token=<live connection token>   joins at once, as the token's participant
 *   #join=<join-link token>          asks the person's name first, then joins as a guest of the link
 */
import { joinRoom, type Room } from './room';

/** Says `words` in `root`, in place of anything there. */
function say(root: HTMLElement, words: string): void {
  const p = document.createElement('p');
  p.className = 'vss-embed-note';
  p.setAttribute('role', 'alert');
  p.textContent = words;
  root.replaceChildren(p);
}

/** The error's message, as the API or the SDK says it. */
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A guest's connection token from a join link, with the name they gave. */
async function guestToken(join: string, name: string): Promise<string> {
  const res = await fetch(`/v1/join/${encodeURIComponent(join)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ display_name: name }),
  });
  const body = (await res.json().catch(() => null)) as {
    data?: { access_token: string };
    error?: { message: string };
  } | null;
  if (!res.ok || !body?.data) throw new Error(body?.error?.message ?? `the server answered ${res.status}`);
  return body.data.access_token;
}

/** Asks the guest's name; resolves with it once they press Join. */
function askName(root: HTMLElement): Promise<string> {
  return new Promise((resolve) => {
    const form = document.createElement('form');
    form.className = 'vss-embed-join';
    const label = document.createElement('label');
    label.textContent = 'Your name';
    const input = document.createElement('input');
    Object.assign(input, { required: true, maxLength: 64, autocomplete: 'name' });
    label.append(input);
    const button = document.createElement('button');
    button.type = 'submit';
    button.textContent = 'Join';
    form.append(label, button);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (input.value.trim()) resolve(input.value.trim());
    });
    root.replaceChildren(form);
    input.focus();
  });
}

/** Reads the fragment, clears it, and joins in `root`; null when nothing was joined (said in words). */
export async function mountEmbed(root: HTMLElement): Promise<Room | null> {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  history.replaceState(null, '', location.pathname + location.search);
  const token = params.get('token');
  const join = params.get('join');
  try {
    if (token) return await joinRoom({ token, container: root, url: location.origin });
    if (join) {
      const name = await askName(root);
      const guest = await guestToken(join, name);
      root.replaceChildren();
      return await joinRoom({ token: guest, container: root, url: location.origin, displayName: name });
    }
    say(root, 'This room needs a #token= or a #join= in its address: the app that shows it adds one.');
  } catch (err) {
    say(root, `Could not join: ${reason(err)}`);
  }
  return null;
}

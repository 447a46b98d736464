/**
 * The room the SDK draws in `joinRoom({ container })`: a tile per camera or screen with its
 * person's name, the camera and microphone toggles, leave, the recording indicator, slow-link
 * marks and chat. Plain DOM, no framework; themed through CSS custom properties on the container
 * (or any ancestor):
 *
 *   --vss-bg, --vss-fg, --vss-muted, --vss-accent, --vss-tile-bg, --vss-danger, --vss-radius,
 *   --vss-font
 *
 * Built from the public `Room` only: an app that draws its own room has the same events.
 */
import type { TrackKind } from '@vss/protocol';
import type { Room } from './room';

const STYLE_ID = 'vss-room-style';
const CSS = `
.vss-room{--_bg:var(--vss-bg,#111418);--_fg:var(--vss-fg,#f4f6f8);--_muted:var(--vss-muted,#aab4be);
--_accent:var(--vss-accent,#3b82f6);--_tile:var(--vss-tile-bg,#1f252c);--_danger:var(--vss-danger,#e5484d);
--_r:var(--vss-radius,10px);font-family:var(--vss-font,system-ui,sans-serif);background:var(--_bg);color:var(--_fg);
display:grid;grid-template-rows:auto 1fr auto;grid-template-columns:1fr minmax(200px,280px);gap:8px;padding:8px;
box-sizing:border-box;height:100%;min-height:320px}
.vss-room *{box-sizing:border-box}
.vss-bar{grid-column:1/3;display:flex;gap:12px;align-items:center;font-size:14px;color:var(--_muted)}
.vss-rec{color:var(--_danger);font-weight:600}
.vss-tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:8px;align-content:start;overflow:auto}
.vss-tile{position:relative;background:var(--_tile);border-radius:var(--_r);aspect-ratio:4/3;overflow:hidden}
.vss-tile canvas,.vss-tile video{width:100%;height:100%;object-fit:contain;display:block}
.vss-name{position:absolute;left:6px;bottom:6px;max-width:calc(100% - 12px);padding:2px 8px;border-radius:6px;
background:rgba(0,0,0,.65);color:#fff;font-size:13px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.vss-mark{position:absolute;right:6px;top:6px;padding:2px 6px;border-radius:6px;background:rgba(0,0,0,.65);color:#fff;font-size:12px}
.vss-chat{display:flex;flex-direction:column;gap:6px;min-height:0}
.vss-chat h2{margin:0;font-size:14px;color:var(--_muted)}
.vss-log{flex:1;overflow:auto;list-style:none;margin:0;padding:0;font-size:14px}
.vss-log li{margin:0 0 4px}
.vss-log b{color:var(--_muted);font-weight:600}
.vss-chat form{display:flex;gap:6px}
.vss-chat input{flex:1;min-width:0;padding:6px 8px;border-radius:6px;border:1px solid var(--_muted);background:transparent;color:var(--_fg)}
.vss-controls{grid-column:1/3;display:flex;gap:8px;justify-content:center}
.vss-room button{padding:8px 14px;border-radius:6px;border:0;background:var(--_accent);color:#fff;font:inherit;cursor:pointer}
.vss-room button[aria-pressed=false]{background:var(--_tile);color:var(--_fg)}
.vss-room button.vss-leave{background:var(--_danger)}
.vss-room button:focus-visible,.vss-chat input:focus-visible{outline:3px solid var(--_fg);outline-offset:2px}
`;

/** An element with attributes and children. */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/** Draws `room` in `container`; returns the function that takes it away. */
export function drawRoom(container: HTMLElement, room: Room): () => void {
  if (!document.getElementById(STYLE_ID)) document.head.append(el('style', { id: STYLE_ID }, CSS));
  const rec = el('span', { class: 'vss-rec', role: 'status' });
  const conn = el('span', { role: 'status' }, 'Connected');
  const tiles = el('div', { class: 'vss-tiles', role: 'list', 'aria-label': 'People in the call' });
  const log = el('ul', { class: 'vss-log', 'aria-live': 'polite', 'aria-label': 'Messages' });
  const input = el('input', {
    type: 'text',
    'aria-label': 'Write a message',
    maxlength: '4000',
    autocomplete: 'off',
  });
  const form = el('form', {}, input, el('button', { type: 'submit' }, 'Send'));
  const toggle = (label: string, on: () => boolean, set: (on: boolean) => Promise<void>) => {
    const b = el('button', { type: 'button', 'aria-pressed': String(on()) }, label);
    b.addEventListener('click', () => {
      const next = b.getAttribute('aria-pressed') !== 'true';
      b.setAttribute('aria-pressed', String(next));
      void set(next).catch(() => b.setAttribute('aria-pressed', String(!next)));
    });
    return b;
  };
  const mine = (kind: TrackKind) => room.element(room.userId, kind) !== null;
  const mic = toggle(
    'Microphone',
    () => mine('mic'),
    (on) => room.setMicrophone(on),
  );
  const cam = toggle(
    'Camera',
    () => mine('cam'),
    (on) => room.setCamera(on),
  );
  const leave = el('button', { type: 'button', class: 'vss-leave' }, 'Leave');
  leave.addEventListener('click', () => void room.leave());
  const root = el(
    'div',
    { class: 'vss-room' },
    el('div', { class: 'vss-bar' }, conn, rec),
    tiles,
    el(
      'section',
      { class: 'vss-chat', 'aria-labelledby': 'vss-chat-title' },
      el('h2', { id: 'vss-chat-title' }, 'Chat'),
      log,
      form,
    ),
    el('div', { class: 'vss-controls' }, mic, cam, leave),
  );
  container.append(root);

  const tileOf = new Map<string, HTMLElement>();
  const nameOf = (user: string) => room.participants.find((p) => p.user_id === user)?.display_name ?? user;
  const onTrack: Parameters<typeof room.on<'track'>>[1] = ({ user_id, kind, element }) => {
    if (kind === 'mic') {
      if (user_id === room.userId) mic.setAttribute('aria-pressed', 'true');
      return;
    }
    if (user_id === room.userId && kind === 'cam') cam.setAttribute('aria-pressed', 'true');
    if (!element) return;
    const own = user_id === room.userId ? ' (you)' : '';
    const name = el('bdi', {}, nameOf(user_id));
    const tile = el('div', { class: 'vss-tile', role: 'listitem', 'data-user': user_id, 'data-kind': kind });
    tile.append(
      element,
      el('span', { class: 'vss-name' }, name, `${own}${kind === 'screen' ? ' · screen' : ''}`),
    );
    tileOf.get(`${user_id}/${kind}`)?.remove();
    tileOf.set(`${user_id}/${kind}`, tile);
    tiles.append(tile);
  };
  const onEnded: Parameters<typeof room.on<'track-ended'>>[1] = ({ user_id, kind }) => {
    if (user_id === room.userId && kind === 'mic') mic.setAttribute('aria-pressed', 'false');
    if (user_id === room.userId && kind === 'cam') cam.setAttribute('aria-pressed', 'false');
    tileOf.get(`${user_id}/${kind}`)?.remove();
    tileOf.delete(`${user_id}/${kind}`);
  };
  const onChat: Parameters<typeof room.on<'chat'>>[1] = ({ display_name, text }) => {
    log.append(el('li', {}, el('b', {}, el('bdi', {}, display_name)), ': ', el('bdi', {}, text)));
    log.scrollTop = log.scrollHeight;
  };
  const onRecording: Parameters<typeof room.on<'recording'>>[1] = ({ state }) => {
    rec.textContent = state === 'recording' ? '● Recording' : 'Recording paused';
  };
  const onConnection: Parameters<typeof room.on<'connection'>>[1] = ({ state }) => {
    conn.textContent =
      state === 'connected'
        ? 'Connected'
        : state === 'reconnecting'
          ? 'Reconnecting…'
          : 'You have left the call';
    if (state === 'closed')
      for (const b of root.querySelectorAll('button, input')) b.setAttribute('disabled', '');
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    void room
      .sendChat(text)
      .catch((err: Error) =>
        onChat({ user_id: '', display_name: 'Not sent', text: err.message, local: true }),
      );
  });
  // Slow-link marks: what this page gets of the others' video, as the server says it.
  const marks = room.engine.subscribe(() => {
    const s = room.engine.snapshot();
    for (const [key, tile] of tileOf) {
      const state = s.video[key];
      const words = state === 'stalled' ? 'Video paused' : state === 'reduced' ? 'Reduced quality' : null;
      let mark = tile.querySelector<HTMLElement>('.vss-mark');
      if (!words) mark?.remove();
      else {
        mark ??= tile.appendChild(el('span', { class: 'vss-mark' }));
        mark.textContent = s.serverBusy ? `${words} — the server is busy` : `${words} — slow connection`;
      }
    }
  });
  room
    .on('track', onTrack)
    .on('track-ended', onEnded)
    .on('chat', onChat)
    .on('recording', onRecording)
    .on('connection', onConnection);
  return () => {
    marks();
    room.off('track', onTrack).off('track-ended', onEnded).off('chat', onChat);
    room.off('recording', onRecording).off('connection', onConnection);
    root.remove();
  };
}

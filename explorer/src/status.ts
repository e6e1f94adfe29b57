// The dev loop's build state on the page: when the data has problems they are listed over the
// page, with file:line:column, until a rebuild succeeds. Only in `npm run dev`; a built site has
// no dev server to ask.
import { BUILD_EVENT, STATUS_PATH, type BuildStatus } from '../../build/site/dev-status.ts';
import { h } from './dom.ts';

export function watchBuild(onRebuilt: () => void): void {
  const hot = import.meta.hot;
  if (!hot) return;
  const panel = document.getElementById('build-status')!;
  let last = 0;
  const show = (status: BuildStatus) => {
    if (status.version < last) return;
    last = status.version;
    if (status.ok) {
      const wasFailing = panel.classList.contains('failed');
      panel.className = 'build-status ok';
      panel.replaceChildren(h('strong', null, 'Rebuilt'), ` ${status.records} records in ${Math.round(status.ms)} ms`);
      panel.hidden = false;
      setTimeout(
        () => {
          if (panel.classList.contains('ok')) panel.hidden = true;
        },
        wasFailing ? 2500 : 1500,
      );
      return;
    }
    panel.className = 'build-status failed';
    panel.setAttribute('role', 'alert');
    panel.replaceChildren(
      h(
        'p',
        null,
        h('strong', null, 'The data has problems.'),
        status.served
          ? ' The API still answers from the last good build; save a fix and this goes away.'
          : ' The API has no good build yet; save a fix and this goes away.',
      ),
      h('pre', null, status.text),
    );
    panel.hidden = false;
  };
  fetch(STATUS_PATH.slice(1), { cache: 'no-store' })
    .then((res) => (res.ok ? res.json() : undefined))
    .then((status: BuildStatus | undefined) => status && !status.ok && show(status))
    .catch(() => {});
  hot.on(BUILD_EVENT, (status: BuildStatus) => {
    show(status);
    if (status.ok) onRebuilt();
  });
}

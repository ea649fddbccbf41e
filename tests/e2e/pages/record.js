// Records the events of each <retrace-player> on the page (and of those
// added later through `watch(player)`) in `window.recorded`, for the
// tests: [{id, type, detail, at}].
window.recorded = [];
window.watch = (player) => {
  for (const type of ['ready', 'play', 'pause', 'ended', 'marker', 'entry', 'error']) {
    player.addEventListener(type, (e) => {
      window.recorded.push({ id: player.id, type, detail: e.detail, at: performance.now() });
    });
  }
  return player;
};
for (const player of document.querySelectorAll('retrace-player')) window.watch(player);

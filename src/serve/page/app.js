// Damast: the browser board for `damast serve`.
//
// The server is the source of truth: this page renders the game state it sends (the answer to
// each request and the `state` events of /api/games/{id}/events) and turns clicks and drags into
// API requests. Plain ES2020, no build step, nothing fetched from outside the server.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const CELL = 100; // SVG units per board square
const EVAL_CLAMP = 300; // the eval bar is full at ±3 men
const GRAPH_CLAMP = 500; // the score graph is clamped at ±5 men
const WIN = 9000; // beyond ±9000 hundredths a score is a won game
const GRAPH_W = 600;
const GRAPH_H = 160;
const RESYNC_MS = 250; // see resync()
const CROWN = 'M-21 9 L-24 -13 L-11 -3 L0 -19 L11 -3 L24 -13 L21 9 Z';

const $ = (id) => document.getElementById(id);

// Everything the page knows besides the state itself.
const ui = {
  game: null, // the last state rendered
  flipped: false, // board seen from Black
  selection: [], // the move being entered: its start square, then each landing clicked
  pending: false, // a move request is under way
  navigating: false, // a series of undo/redo requests is under way
  events: null, // the EventSource of the current game
  stateEvents: 0, // how many `state` events have been rendered (see applyResponse)
  history: [], // the game's moves, including undone moves that redo can replay
  info: null, // the last engine search info shown
  review: null, // the last game review (state.review or a `review` event)
  fenDirty: false, // the user edited the FEN box: do not overwrite it
  errors: 0, // errors shown so far (exposed for tests)
  resyncs: 0, // out-of-order state events corrected (see resync)
  resyncTimer: null,
  suppressClick: false, // a drop ends a drag: ignore the click the browser sends after it
  drag: null,
  coords: new Map(), // square number -> {row, col}, seen from White
  squareAt: new Map(), // "row,col" -> square number
};

// ---------------------------------------------------------------------------------------------
// API

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Sends a request; answers the parsed JSON (or text); throws ApiError on a 4xx/5xx answer. */
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, `cannot reach the server (${e.message})`);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = '';
    try {
      message = JSON.parse(text).error;
    } catch (_) {
      message = text;
    }
    throw new ApiError(res.status, message || `${res.status} ${res.statusText}`);
  }
  if (res.status === 204 || text === '') return null;
  const type = res.headers.get('Content-Type') || '';
  return type.includes('json') ? JSON.parse(text) : text;
}

/**
 * POSTs an action on the current game and renders the state it answers.
 *
 * The answer and the event stream travel on different connections, so an answer can arrive
 * after a newer `state` event (the engine's reply, say). The server sends a `state` event after
 * every change, so when any state event came in while the request was under way, the answer is
 * not rendered: the events have shown, or will show, everything it could.
 */
async function post(action, body) {
  const game = ui.game;
  const seen = ui.stateEvents;
  const state = await api('POST', `/api/games/${game.id}/${action}`, body);
  if (state && state.id === ui.game.id && (!eventsOpen() || ui.stateEvents === seen)) {
    render(state);
  }
  return state;
}

function eventsOpen() {
  return ui.events !== null && ui.events.readyState === EventSource.OPEN;
}

/** Runs an action started by the user; shows its error instead of letting it vanish. */
async function act(fn) {
  try {
    return await fn();
  } catch (e) {
    showError(e);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

let messageTimer = null;

function showError(e) {
  ui.errors += 1;
  const text = e instanceof ApiError && e.status ? `${e.message} (${e.status})` : e.message || String(e);
  showMessage(text, 'error');
  setDataset();
}

function showMessage(text, kind = 'info') {
  const box = $('message');
  box.querySelector('.message-text').textContent = text;
  box.className = `message ${kind}`;
  box.hidden = false;
  clearTimeout(messageTimer);
  // errors stay until dismissed or replaced; notices go away by themselves
  if (kind !== 'error') messageTimer = setTimeout(hideMessage, 4000);
}

function hideMessage() {
  $('message').hidden = true;
}

// ---------------------------------------------------------------------------------------------
// Games and events

/** The request body's engine settings, from the new-game form. */
function formSettings() {
  const colour = $('colour').value;
  const engine = colour === 'white' ? 'black' : colour === 'black' ? 'white' : 'none';
  const level = $('level').value === 'strength' ? Number($('strength').value) : $('level').value;
  return { engine, level, movetime: Number($('movetime').value) };
}

/** Creates a game (POST /api/games) and makes it the page's game. */
async function createGame(body) {
  const state = await api('POST', '/api/games', body);
  const old = ui.game;
  ui.flipped = body.engine === 'white'; // the human plays Black: Black at the bottom
  adoptGame(state);
  if (old && old.id !== state.id) {
    // free the server's slot; a game already gone (expired) is no loss
    api('DELETE', `/api/games/${old.id}`).catch((e) => {
      if (e.status !== 404) showError(e);
    });
  }
  return state;
}

/** Starts showing a game: resets what belonged to the old one and listens to its events. */
function adoptGame(state) {
  ui.game = null;
  ui.selection = [];
  ui.history = [];
  ui.info = null;
  ui.review = null;
  ui.fenDirty = false;
  hideChoices();
  setCoords(state);
  openEvents(state.id);
  history.replaceState(null, '', `#game=${state.id}`);
  render(state);
  showInfo(state.analysis || null);
}

function openEvents(id) {
  if (ui.events) ui.events.close();
  const es = new EventSource(`/api/games/${id}/events`);
  ui.events = es;
  const mine = (fn) => (e) => {
    if (es !== ui.events) return; // a late event of the previous game
    let data;
    try {
      data = JSON.parse(e.data);
    } catch (err) {
      showError(new Error(`bad ${e.type} event from the server: ${err.message}`));
      return;
    }
    fn(data);
  };
  es.addEventListener('state', mine((state) => {
    ui.stateEvents += 1;
    render(state);
    scheduleResync();
  }));
  es.addEventListener('info', mine(showInfo));
  es.addEventListener('review', mine((review) => {
    ui.review = review;
    renderReview();
    renderMoves();
    setDataset();
  }));
  es.addEventListener('open', () => renderStatus());
  es.addEventListener('error', () => {
    if (es !== ui.events) return;
    if (es.readyState === EventSource.CLOSED) {
      showError(new Error('lost the connection to the game (it may have expired): start a new game'));
    }
    renderStatus();
  });
}

/**
 * Reads the state once more a moment after the last `state` event of a burst.
 *
 * A state event can come in after a newer one (seen with the first server build: a request
 * thread's state, computed before the engine's move, was sent after the engine's own state
 * event), which would leave the page showing an old position, "thinking" for ever. The read
 * is ignored when another state event arrived meanwhile (that event schedules a new read).
 * Corrections are counted in body.dataset.resyncs so that tests can report them.
 */
function scheduleResync() {
  clearTimeout(ui.resyncTimer);
  ui.resyncTimer = setTimeout(resync, RESYNC_MS);
}

async function resync() {
  const g = ui.game;
  if (!g) return;
  const seen = ui.stateEvents;
  let state;
  try {
    state = await api('GET', `/api/games/${g.id}`);
  } catch (e) {
    if (e.status !== 404) showError(e); // a removed game is reported by its event stream
    return;
  }
  if (!ui.game || state.id !== ui.game.id || ui.stateEvents !== seen) return;
  if (stateKey(state) !== stateKey(ui.game)) {
    ui.resyncs += 1;
    console.warn(`damast: state event out of order (page showed ply ${ui.game.ply}, thinking ${ui.game.thinking}; server has ply ${state.ply}, thinking ${state.thinking})`);
    render(state);
  }
}

/**
 * What a state must agree on to show the same thing. A review's progress is left out: it comes
 * in `review` events between state events, so a read during a review differs from the last
 * state event without anything being out of order.
 */
function stateKey(s) {
  const r = s.review;
  return [s.ply, s.redo, s.fen, s.thinking, s.analysing, s.result ? s.result.score : '',
    s.engine, s.level, s.movetime, r ? `${r.total}/${r.running}` : ''].join('|');
}

// ---------------------------------------------------------------------------------------------
// Rendering the state

function render(state) {
  const prev = ui.game;
  const moved = !prev || prev.id !== state.id || prev.ply !== state.ply || prev.fen !== state.fen;
  if (!prev || prev.id !== state.id) setCoords(state);
  ui.game = state;
  if (moved) {
    // the position changed: a half-entered move no longer means anything
    ui.selection = [];
    hideChoices();
  }
  updateHistory(state, !prev || prev.id !== state.id);
  if (state.review) ui.review = state.review;
  if (state.analysis && moved) showInfo(state.analysis);

  renderBoard();
  renderTurn();
  renderMoves();
  renderReview();
  renderControls();
  renderStatus();
  renderMeta();
  if (!ui.fenDirty && document.activeElement !== $('fen')) $('fen').value = state.fen;
  setDataset();
}

/** The attributes a test waits on. */
function setDataset() {
  const d = document.body.dataset;
  const g = ui.game;
  d.gameId = g ? g.id : '';
  d.ply = g ? String(g.ply) : '0';
  d.thinking = g && g.thinking ? 'true' : 'false';
  d.result = g && g.result ? g.result.score : '';
  d.side = g ? g.side : '';
  d.selection = ui.selection.join('-');
  d.pending = String(ui.pending || ui.navigating);
  d.errors = String(ui.errors);
  d.resyncs = String(ui.resyncs);
  const r = ui.review;
  d.review = !r ? '' : r.running ? 'running' : r.done === r.total ? 'done' : 'stopped';
}

/** Keeps the moves undone by undo, so the move list can show what redo will replay. */
function updateHistory(state, reset) {
  if (state.moves.length > state.ply) {
    ui.history = state.moves.slice(); // the server lists the undone moves itself
    return;
  }
  const played = state.moves;
  const same = !reset && played.every((m, i) => ui.history[i] && samePath(ui.history[i], m));
  if (same && ui.history.length >= played.length) {
    ui.history.splice(0, played.length, ...played);
    ui.history.length = Math.min(ui.history.length, state.ply + state.redo);
  } else {
    ui.history = played.slice();
  }
}

function samePath(a, b) {
  return a.text === b.text && a.path.join('-') === b.path.join('-');
}

function renderMeta() {
  const g = ui.game;
  const level = /^\d+$/.test(String(g.level)) ? `strength ${g.level}` : g.level;
  const engine = g.engine === 'none' ? 'no engine' : `engine ${g.engine}, ${level}, ${g.movetime} s`;
  $('game-meta').textContent = `${capitalize(g.variant)} · ${engine}`;
}

function renderTurn() {
  const g = ui.game;
  const side = $('side');
  side.replaceChildren();
  if (g.result) {
    side.append(h('span', { class: 'disc none' }), 'Game over');
  } else {
    side.append(h('span', { class: `disc ${g.side}` }), `${capitalize(g.side)} to move`);
  }

  const result = $('result');
  if (g.result) {
    const r = g.result;
    const who = r.winner ? `${capitalize(r.winner)} wins` : 'Draw';
    result.replaceChildren(
      h('span', { class: 'score' }, r.score),
      h('span', { class: 'who' }, who),
      h('span', { class: 'reason' }, r.reason),
    );
    result.className = `result ${r.winner || 'draw'}`;
    result.hidden = false;
  } else {
    result.hidden = true;
    result.replaceChildren();
  }

  const rule = $('draw-rule');
  if (g.draw_rule && !g.result) {
    const n = g.draw_rule.moves_left;
    rule.textContent = `${g.draw_rule.rule}: ${n} move${n === 1 ? '' : 's'} left`;
    rule.hidden = false;
  } else {
    rule.hidden = true;
    rule.textContent = '';
  }
}

function renderStatus() {
  const g = ui.game;
  const status = $('status');
  let text;
  let cls = '';
  if (!g) {
    text = 'Loading…';
  } else if (ui.events && ui.events.readyState === EventSource.CONNECTING) {
    text = 'Reconnecting…';
    cls = 'warn';
  } else if (g.thinking) {
    text = 'thinking…';
    cls = 'busy';
  } else if (ui.review && ui.review.running) {
    text = `Analysing game ${ui.review.done}/${ui.review.total}…`;
    cls = 'busy';
  } else if (g.analysing) {
    text = 'Analysing…';
    cls = 'busy';
  } else if (g.result) {
    text = `Game over: ${g.result.score}`;
  } else if (g.engine === 'none') {
    text = `${capitalize(g.side)} to move`;
  } else if (g.engine === g.side) {
    text = 'Engine to move';
  } else {
    text = 'Your move';
  }
  status.textContent = text;
  status.className = `status ${cls}`;
}

function renderControls() {
  const g = ui.game;
  const reviewing = Boolean(ui.review && ui.review.running);
  $('undo').disabled = g.ply === 0;
  $('redo').disabled = g.redo === 0;
  $('go').disabled = Boolean(g.result) || g.thinking || g.legal.length === 0;
  $('stop').disabled = !(g.thinking || g.analysing || reviewing);
  $('analyse').disabled = Boolean(g.result) || g.thinking;
  $('analyse-game').disabled = g.ply === 0 || reviewing;
}

// ---------------------------------------------------------------------------------------------
// The board

function setCoords(state) {
  ui.coords = new Map();
  ui.squareAt = new Map();
  for (const s of state.squares) {
    ui.coords.set(s.n, { row: s.row, col: s.col });
    ui.squareAt.set(`${s.row},${s.col}`, s.n);
  }
}

/** Where a square is drawn: the state's row/col are seen from White; flipping mirrors both. */
function screenPos(sq, size) {
  const row = ui.flipped ? size - 1 - sq.row : sq.row;
  const col = ui.flipped ? size - 1 - sq.col : sq.col;
  return { x: col * CELL, y: row * CELL };
}

/** Whether the user may enter a move now. */
function canMove() {
  const g = ui.game;
  return Boolean(g) && !g.result && !g.thinking && g.legal.length > 0 && g.engine !== g.side
    && !ui.pending && !ui.navigating;
}

/** The legal moves whose path begins with `prefix`. */
function candidates(prefix) {
  return ui.game.legal.filter((m) => prefix.every((s, i) => m.path[i] === s));
}

function startsMove(n) {
  return ui.game.legal.some((m) => m.path[0] === n);
}

/** What the board shows: the state's pieces, with the move being entered applied on top. */
function boardView() {
  const g = ui.game;
  const sel = ui.selection;
  const v = {
    pieces: new Map(g.squares.map((s) => [s.n, s.piece])),
    targets: new Set(),
    movable: new Set(),
    must: new Set(g.must_capture || []),
    taken: new Set(),
    selected: null,
    last: new Set(g.last_move ? g.last_move.path : []),
    lastCaptured: new Set(g.last_move ? g.last_move.captured : []),
  };
  if (canMove()) for (const m of g.legal) v.movable.add(m.path[0]);
  if (sel.length > 0) {
    const cands = candidates(sel);
    for (const m of cands) if (m.path.length > sel.length) v.targets.add(m.path[sel.length]);
    const end = sel[sel.length - 1];
    if (sel.length > 1) {
      // the piece stands on its last landing; the pieces it jumped so far are shown as taken
      const piece = v.pieces.get(sel[0]);
      v.pieces.set(sel[0], null);
      v.pieces.set(end, piece);
      v.must.delete(sel[0]);
      v.movable.delete(sel[0]);
      for (const t of takenSoFar(sel, cands)) v.taken.add(t);
    }
    v.selected = end;
  }
  return v;
}

/** The captured squares that lie on the legs from landing to landing entered so far. */
function takenSoFar(sel, cands) {
  const captured = new Set(cands.flatMap((m) => m.captured));
  const out = [];
  for (let i = 1; i < sel.length; i++) {
    for (const s of between(sel[i - 1], sel[i])) if (captured.has(s)) out.push(s);
  }
  return out;
}

/** The playable squares strictly between two squares on a line. */
function between(a, b) {
  const A = ui.coords.get(a);
  const B = ui.coords.get(b);
  if (!A || !B) return [];
  const dr = Math.sign(B.row - A.row);
  const dc = Math.sign(B.col - A.col);
  const out = [];
  let r = A.row + dr;
  let c = A.col + dc;
  for (let guard = 0; (r !== B.row || c !== B.col) && guard < 20; guard++) {
    const n = ui.squareAt.get(`${r},${c}`);
    if (n !== undefined) out.push(n);
    r += dr;
    c += dc;
  }
  return out;
}

function renderBoard() {
  const g = ui.game;
  const svg = $('board');
  const size = g.size;
  svg.setAttribute('viewBox', `0 0 ${size * CELL} ${size * CELL}`);
  const v = boardView();
  const frag = document.createDocumentFragment();
  frag.append(svgEl('rect', { class: 'board-light', x: 0, y: 0, width: size * CELL, height: size * CELL }));
  for (const sq of g.squares) frag.append(squareEl(sq, size, v));
  svg.replaceChildren(frag);
  svg.classList.toggle('can-move', canMove());
}

function squareEl(sq, size, v) {
  const { x, y } = screenPos(sq, size);
  const piece = v.pieces.get(sq.n);
  const cls = ['sq'];
  if (v.last.has(sq.n)) cls.push('last');
  if (v.lastCaptured.has(sq.n)) cls.push('last-captured');
  if (v.targets.has(sq.n)) cls.push('target');
  if (v.selected === sq.n) cls.push('selected');
  if (piece && v.movable.has(sq.n)) cls.push('has-movable');
  const g = svgEl('g', { class: cls.join(' '), 'data-square': sq.n, transform: `translate(${x} ${y})` });
  g.append(svgEl('rect', { class: 'sq-bg', width: CELL, height: CELL }));
  g.append(svgEl('text', { class: 'sq-num', x: 7, y: 21 }, String(sq.n)));
  if (piece) g.append(pieceEl(piece, sq.n, v));
  if (v.targets.has(sq.n)) g.append(svgEl('circle', { class: 'target-dot', cx: CELL / 2, cy: CELL / 2, r: 15 }));
  return g;
}

function pieceEl(p, n, v) {
  const white = p === 'w' || p === 'W';
  const king = p === 'W' || p === 'B';
  const cls = ['piece', white ? 'white' : 'black'];
  if (king) cls.push('king');
  if (v.movable.has(n)) cls.push('movable');
  if (v.must.has(n)) cls.push('must-capture');
  if (v.taken.has(n)) cls.push('taken');
  if (v.selected === n) cls.push('lifted');
  const g = svgEl('g', { class: cls.join(' '), transform: `translate(${CELL / 2} ${CELL / 2})` });
  if (v.must.has(n)) g.append(svgEl('circle', { class: 'capture-ring', r: 45 }));
  g.append(
    svgEl('circle', { class: 'shadow', cx: 2, cy: 5, r: 38 }),
    svgEl('circle', { class: 'body', r: 38 }),
    svgEl('circle', { class: 'rim', r: 27 }),
  );
  if (king) g.append(svgEl('path', { class: 'crown', d: CROWN }));
  return g;
}

// ---------------------------------------------------------------------------------------------
// Entering moves: clicks and drags

function squareOf(target) {
  const g = target && target.closest ? target.closest('[data-square]') : null;
  return g ? Number(g.dataset.square) : null;
}

function onBoardClick(e) {
  if (ui.suppressClick) return;
  const n = squareOf(e.target);
  if (n === null) {
    clearSelection();
    return;
  }
  onSquare(n);
}

/**
 * A click (or a drop) on square n. A move is entered square by square: its start, then each
 * landing; the next landings of the moves that fit so far are the highlighted targets.
 */
function onSquare(n) {
  if (!canMove()) return;
  const sel = ui.selection;
  if (sel.length === 0) {
    if (startsMove(n)) setSelection([n]);
    return;
  }
  const cands = candidates(sel);
  if (cands.some((m) => m.path.length > sel.length && m.path[sel.length] === n)) {
    extendSelection(n);
    return;
  }
  if (sel.length === 1 && n === sel[0]) {
    clearSelection();
    return;
  }
  // a click straight on the end square of a move that fits so far picks it
  const ends = cands.filter((m) => m.path.length > sel.length && m.path[m.path.length - 1] === n);
  if (ends.length > 0) {
    chooseAmong(ends);
    return;
  }
  if (startsMove(n)) {
    setSelection([n]);
    return;
  }
  clearSelection();
}

function setSelection(sel) {
  ui.selection = sel;
  hideChoices();
  renderBoard();
  setDataset();
}

function clearSelection() {
  if (ui.selection.length === 0 && $('choices').hidden) return;
  setSelection([]);
}

/** Adds a landing; sends the move once the squares entered name complete moves only. */
function extendSelection(n) {
  const sel = [...ui.selection, n];
  setSelection(sel);
  const cands = candidates(sel);
  const complete = cands.filter((m) => m.path.length === sel.length);
  if (complete.length === 0) return; // more landings to come: the targets show them
  if (complete.length === cands.length) {
    chooseAmong(complete);
  } else {
    // free capture choice: the piece may stop here or capture on
    showChoices('Stop here, or click the next landing:', complete);
  }
}

/** Sends one of the moves; asks the user when they differ. */
function chooseAmong(moves) {
  const paths = new Set(moves.map((m) => m.path.join('-')));
  if (paths.size > 1) {
    ui.selection = ui.selection.slice(0, 1);
    renderBoard();
    showChoices('Which move?', moves);
    return;
  }
  // one path (maybe several moves with different captures: the server then says "ambiguous")
  sendMove({ path: moves[0].path }, moves);
}

async function sendMove(body, moves) {
  if (body.path) ui.selection = body.path.slice(); // show the piece on its end square meanwhile
  renderBoard();
  ui.pending = true;
  try {
    await post('move', body);
  } catch (e) {
    ui.selection = [];
    if (e.status === 400 && /ambiguous/i.test(e.message) && moves.length > 1) {
      showChoices('This path takes different pieces. Which capture?', moves);
    } else {
      showError(e);
    }
  } finally {
    ui.pending = false;
    if (ui.game) {
      renderBoard();
      setDataset();
    }
  }
}

/** The Hub form of a move (from x to x every captured square, ascending): never ambiguous. */
function hubText(m) {
  const from = m.path[0];
  const to = m.path[m.path.length - 1];
  const caps = [...m.captured].sort((a, b) => a - b);
  return [from, to, ...caps].join('x');
}

function showChoices(title, moves) {
  const box = $('choices');
  const samePathTwice = (m) => moves.some((o) => o !== m && o.path.join('-') === m.path.join('-'));
  const buttons = moves.map((m) => {
    const label = m.captured.length ? `${m.text}  (takes ${m.captured.join(', ')})` : m.text;
    const b = h('button', { type: 'button', class: 'choice' }, label);
    b.addEventListener('click', () => {
      hideChoices();
      sendMove(samePathTwice(m) ? { move: hubText(m) } : { path: m.path }, [m]);
    });
    return b;
  });
  const cancel = h('button', { type: 'button', class: 'choice cancel' }, 'Cancel');
  cancel.addEventListener('click', () => setSelection([]));
  box.replaceChildren(h('span', { class: 'choices-title' }, title), ...buttons, cancel);
  box.hidden = false;
}

function hideChoices() {
  const box = $('choices');
  box.hidden = true;
  box.replaceChildren();
}

// Drags: a press on a piece that can move, then a move past a few pixels, lifts it; the drop
// square counts as a click there. A drag that ends where it began leaves the piece selected.

function onPointerDown(e) {
  if (e.button !== 0 || !canMove()) return;
  const n = squareOf(e.target);
  if (n === null) return;
  const sel = ui.selection;
  const fromLanding = sel.length > 1 && n === sel[sel.length - 1];
  if (!fromLanding && !startsMove(n)) return;
  ui.drag = { square: n, fromLanding, x0: e.clientX, y0: e.clientY, id: e.pointerId, active: false, ghost: null };
}

function onPointerMove(e) {
  const d = ui.drag;
  if (!d || e.pointerId !== d.id) return;
  if (!d.active) {
    if (Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < 6) return;
    beginDrag(d);
  }
  if (d.ghost) {
    const p = toSvgPoint(e.clientX, e.clientY);
    d.ghost.setAttribute('transform', `translate(${p.x} ${p.y})`);
  }
  e.preventDefault();
}

function beginDrag(d) {
  const svg = $('board');
  d.active = true;
  svg.setPointerCapture(d.id);
  if (!d.fromLanding && !(ui.selection.length === 1 && ui.selection[0] === d.square)) {
    setSelection([d.square]);
  }
  // lift the piece out of its square so that it is drawn above the others and can be moved
  const piece = svg.querySelector(`[data-square="${d.square}"] .piece`);
  if (piece) {
    piece.classList.add('dragging');
    svg.append(piece);
    d.ghost = piece;
  }
}

function onPointerUp(e) {
  const d = ui.drag;
  if (!d || e.pointerId !== d.id) return;
  ui.drag = null;
  if (!d.active) return; // a plain click: the click handler takes it
  // the click that may follow is dispatched with this same release, before any timer runs
  ui.suppressClick = true;
  setTimeout(() => {
    ui.suppressClick = false;
  }, 0);
  const svg = $('board');
  if (svg.hasPointerCapture(d.id)) svg.releasePointerCapture(d.id);
  const drop = squareOf(document.elementFromPoint(e.clientX, e.clientY));
  if (drop !== null && drop !== d.square) {
    onSquare(drop);
  }
  if (ui.game) renderBoard(); // puts the lifted piece back where the state says
}

function cancelDrag() {
  if (!ui.drag) return;
  ui.drag = null;
  if (ui.game) renderBoard();
}

function toSvgPoint(x, y) {
  const svg = $('board');
  return new DOMPoint(x, y).matrixTransform(svg.getScreenCTM().inverse());
}

// ---------------------------------------------------------------------------------------------
// The move list and navigation

function renderMoves() {
  const g = ui.game;
  const list = $('moves');
  const entries = ui.review && ui.review.entries ? ui.review.entries : [];
  const start = h('button', { type: 'button', class: `mv start${g.ply === 0 ? ' current' : ''}`, 'data-ply': 0 }, 'Start');
  const rows = [];
  let row = null;
  ui.history.forEach((m, i) => {
    const num = String(m.number || '').replace(/\.+$/, '');
    if (!row || (num && num !== row.num) || row.cells.length === 2) {
      row = { num: num || (row ? row.num : ''), cells: [] };
      // a row that starts with the second mover ("12...") keeps the first column empty
      if (/\.\.\.$/.test(m.number || '')) row.cells.push(h('span', { class: 'mv gap' }, '…'));
      rows.push(row);
    }
    row.cells.push(moveButton(m, i, entries[i]));
  });
  const frag = document.createDocumentFragment();
  frag.append(start);
  for (const r of rows) {
    frag.append(h('div', { class: 'mv-row' }, h('span', { class: 'num' }, r.num ? `${r.num}.` : ''), ...r.cells));
  }
  const hidden = g.ply + g.redo - ui.history.length;
  if (hidden > 0) frag.append(h('div', { class: 'muted small' }, `${hidden} more move${hidden === 1 ? '' : 's'} to redo`));
  list.replaceChildren(frag);
  const current = list.querySelector('.current');
  if (current && g.ply > 0) {
    // keep the current move in view, scrolling the list only (not the page); the list is
    // positioned, so it is the offsetParent of the move buttons
    const top = current.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
}

function moveButton(m, i, entry) {
  const g = ui.game;
  const ply = i + 1;
  const cls = ['mv', m.side];
  if (ply === g.ply) cls.push('current');
  if (ply > g.ply) cls.push('future');
  let title = `${m.side}: ${m.text}`;
  if (entry && entry.blunder) {
    cls.push('blunder');
    title += ` — blunder; best ${entry.best} (${formatMen(entry.best_score)})`;
  } else if (entry && entry.book) {
    cls.push('book');
  }
  return h('button', { type: 'button', class: cls.join(' '), 'data-ply': ply, title }, m.text);
}

/**
 * Goes to a ply by undo and redo requests. Against the engine, undo and redo jump to the human's
 * turns, so a ply with the engine to move is passed: the walk stops at the first turn past it.
 */
async function goToPly(target) {
  if (ui.navigating || !ui.game) return;
  ui.navigating = true;
  setSelection([]);
  try {
    let s = ui.game;
    for (let guard = 0; s.ply > target && guard < 1000; guard++) {
      const before = s.ply;
      s = await post('undo');
      if (s.ply >= before) break;
    }
    for (let guard = 0; s.ply < target && s.redo > 0 && guard < 1000; guard++) {
      const before = s.ply;
      s = await post('redo');
      if (s.ply <= before) break;
    }
  } catch (e) {
    showError(e);
  } finally {
    ui.navigating = false;
    if (ui.game) render(ui.game);
  }
}

// ---------------------------------------------------------------------------------------------
// Engine output: eval bar, line, game review graph

function formatMen(score) {
  if (score === undefined || score === null) return '';
  if (Math.abs(score) >= WIN) return score > 0 ? 'win' : 'loss';
  const v = score / 100;
  return `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(2)}`;
}

/** A score from White's side: "+0.15", or who wins. */
function formatWhite(white) {
  if (Math.abs(white) >= WIN) return white > 0 ? 'White wins' : 'Black wins';
  return formatMen(white);
}

function showInfo(info) {
  ui.info = info;
  const bar = $('eval-bar');
  const line = $('line');
  if (!info) {
    setEvalBar(0, '0.00');
    bar.dataset.white = '';
    line.replaceChildren(h('span', { class: 'muted' }, 'No analysis yet.'));
    return;
  }
  const w = info.white;
  setEvalBar(w, Math.abs(w) >= WIN ? (w > 0 ? 'W' : 'B') : formatMen(w).replace('+', ''));
  bar.dataset.white = String(w);
  const kind = info.kind === 'think' ? 'engine' : 'analysis';
  line.replaceChildren(
    h('div', { class: 'line-head' },
      h('span', { class: 'line-score' }, formatWhite(w)),
      h('span', { class: 'muted' }, `depth ${info.depth} · ${formatNodes(info.nodes)} · ${Number(info.time).toFixed(1)} s · ${kind}`)),
    h('div', { class: 'pv' }, (info.pv || []).join(' ') || '—'),
  );
}

/** Fills the bar from White's side (the bottom, unless the board is flipped). */
function setEvalBar(white, label) {
  const bar = $('eval-bar');
  let share;
  if (Math.abs(white) >= WIN) share = white > 0 ? 1 : 0;
  else share = 0.5 + 0.5 * clamp(white, -EVAL_CLAMP, EVAL_CLAMP) / EVAL_CLAMP;
  bar.querySelector('.eval-fill').style.height = `${(share * 100).toFixed(1)}%`;
  bar.querySelector('.eval-text').textContent = label;
  bar.classList.toggle('flipped', ui.flipped);
  bar.classList.toggle('white-ahead', share >= 0.5);
}

function formatNodes(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G nodes`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M nodes`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k nodes`;
  return `${n} nodes`;
}

function renderReview() {
  const r = ui.review;
  const progress = $('review-progress');
  if (!r) {
    progress.textContent = '';
  } else if (r.running) {
    progress.textContent = `Analysing game: ${r.done} / ${r.total} moves…`;
  } else {
    const blunders = (r.entries || []).filter((e) => e.blunder).length;
    const part = r.done === r.total ? '' : ` (stopped at ${r.done} / ${r.total})`;
    progress.textContent = `Game analysed${part}: ${blunders} blunder${blunders === 1 ? '' : 's'}.`;
  }
  renderGraph();
  renderControls();
  renderStatus();
}

/** The score graph: entries[i].white after ply i+1, from White's side, clamped to ±5 men. */
function renderGraph() {
  const svg = $('graph');
  const r = ui.review;
  const entries = r && r.entries ? r.entries : [];
  svg.dataset.complete = String(Boolean(r && !r.running && r.done === r.total && entries.length > 0));
  if (entries.length === 0) {
    svg.replaceChildren(svgEl('text', { class: 'graph-empty', x: GRAPH_W / 2, y: GRAPH_H / 2 }, 'Analyse the game to see its score graph'));
    return;
  }
  const plies = Math.max(r.total || 0, entries.length, 1);
  const padX = 10;
  const padY = 10;
  const x = (ply) => padX + (ply / plies) * (GRAPH_W - 2 * padX);
  const y = (w) => GRAPH_H / 2 - (clamp(w, -GRAPH_CLAMP, GRAPH_CLAMP) / GRAPH_CLAMP) * (GRAPH_H / 2 - padY);
  const pts = [[x(0), y(0)], ...entries.map((e, i) => [x(i + 1), y(e.white)])];
  const line = pts.map(([px, py], i) => `${i ? 'L' : 'M'}${px.toFixed(1)} ${py.toFixed(1)}`).join(' ');
  const zero = y(0);
  const area = `${line} L${pts[pts.length - 1][0].toFixed(1)} ${zero} L${pts[0][0].toFixed(1)} ${zero} Z`;

  const frag = document.createDocumentFragment();
  frag.append(
    svgEl('rect', { class: 'graph-bg', x: 0, y: 0, width: GRAPH_W, height: GRAPH_H }),
    svgEl('path', { class: 'area white-area', d: area, 'clip-path': 'url(#graph-top)' }),
    svgEl('path', { class: 'area black-area', d: area, 'clip-path': 'url(#graph-bottom)' }),
    svgEl('line', { class: 'zero', x1: 0, x2: GRAPH_W, y1: zero, y2: zero }),
    svgEl('path', { class: 'score-line', d: line }),
  );
  const defs = svgEl('defs');
  const top = svgEl('clipPath', { id: 'graph-top' });
  top.append(svgEl('rect', { x: 0, y: 0, width: GRAPH_W, height: zero }));
  const bottom = svgEl('clipPath', { id: 'graph-bottom' });
  bottom.append(svgEl('rect', { x: 0, y: zero, width: GRAPH_W, height: GRAPH_H - zero }));
  defs.append(top, bottom);
  frag.prepend(defs);

  const ply = ui.game ? ui.game.ply : 0;
  if (ply <= plies) {
    frag.append(svgEl('line', { class: 'cursor', x1: x(ply), x2: x(ply), y1: 0, y2: GRAPH_H }));
    const w = ply === 0 ? 0 : entries[ply - 1] ? entries[ply - 1].white : null;
    if (w !== null) frag.append(svgEl('circle', { class: 'cursor-dot', cx: x(ply), cy: y(w), r: 4 }));
  }
  entries.forEach((e, i) => {
    if (e.blunder) {
      const dot = svgEl('circle', { class: 'blunder point', cx: x(i + 1), cy: y(e.white), r: 4.5, 'data-ply': i + 1 });
      dot.append(svgEl('title', {}, `${i + 1}: ${e.played} blunder (best ${e.best})`));
      frag.append(dot);
    }
  });
  // one invisible column per ply takes the clicks, so a point need not be hit exactly
  const colW = (GRAPH_W - 2 * padX) / plies;
  for (let p = 0; p <= entries.length; p++) {
    const hit = svgEl('rect', { class: 'hit', x: x(p) - colW / 2, y: 0, width: colW, height: GRAPH_H, 'data-ply': p });
    const e = entries[p - 1];
    hit.append(svgEl('title', {}, p === 0 ? 'start' : `${p}: ${e.played} ${formatWhite(e.white)}`));
    frag.append(hit);
  }
  svg.replaceChildren(frag);
}

// ---------------------------------------------------------------------------------------------
// Controls

function bindControls() {
  const click = (id, fn) => $(id).addEventListener('click', () => act(fn));
  const board = $('board');
  board.addEventListener('click', onBoardClick);
  board.addEventListener('pointerdown', onPointerDown);
  board.addEventListener('pointermove', onPointerMove);
  board.addEventListener('pointerup', onPointerUp);
  board.addEventListener('pointercancel', cancelDrag);
  board.addEventListener('dragstart', (e) => e.preventDefault());

  // a click anywhere outside the board (and the move choices) drops a half-entered move; the
  // event's path is used, not e.target.closest(): the board handler may have redrawn the board,
  // leaving e.target outside the document
  document.addEventListener('click', (e) => {
    if (ui.pending) return;
    if (e.composedPath().some((n) => n.id === 'board' || n.id === 'choices')) return;
    clearSelection();
  });
  document.addEventListener('keydown', onKey);

  click('undo', () => post('undo'));
  click('redo', () => post('redo'));
  click('flip', () => {
    ui.flipped = !ui.flipped;
    renderBoard();
    setEvalBar(ui.info ? ui.info.white : 0, $('eval-bar').querySelector('.eval-text').textContent);
  });
  click('go', () => post('go'));
  click('stop', () => post('stop'));
  click('analyse', () => post('analyse', { movetime: Number($('analyse-movetime').value) }));
  click('analyse-game', () => post('analyse-game', { movetime: Number($('review-movetime').value) }));

  $('new-game-form').addEventListener('submit', (e) => {
    e.preventDefault();
    act(() => createGame({ variant: $('variant').value, ...formSettings() }));
  });
  click('apply-settings', async () => {
    const s = formSettings();
    await post('settings', s);
    showMessage('Settings applied to this game.');
  });
  $('level').addEventListener('change', () => {
    $('strength').hidden = $('level').value !== 'strength';
  });

  $('fen').addEventListener('input', () => {
    ui.fenDirty = true;
  });
  click('set-fen', () => {
    const fen = $('fen').value.trim();
    if (!fen) throw new Error('enter a FEN first');
    return createGame({ variant: $('variant').value, fen, ...formSettings() });
  });
  click('import-pdn', async () => {
    const pdn = $('pdn').value;
    if (!pdn.trim()) throw new Error('paste a PDN game first');
    // the PDN's GameType tag names its variant; without one, the selected variant is meant
    const body = { pdn, ...formSettings() };
    if (!/\[\s*GameType\b/i.test(pdn)) body.variant = $('variant').value;
    await createGame(body);
    const n = ui.game.ply;
    showMessage(`Imported a game of ${n} move${n === 1 ? '' : 's'}.`);
  });
  click('export-pdn', exportPdn);

  $('moves').addEventListener('click', (e) => {
    const b = e.target.closest('[data-ply]');
    if (b) act(() => goToPly(Number(b.dataset.ply)));
  });
  $('graph').addEventListener('click', (e) => {
    const t = e.target.closest('[data-ply]');
    if (t) act(() => goToPly(Number(t.dataset.ply)));
  });
  $('message').querySelector('.message-close').addEventListener('click', hideMessage);
}

function onKey(e) {
  if (e.target.closest && e.target.closest('input, textarea, select')) return;
  if (e.key === 'Escape') clearSelection();
  else if (e.key === 'ArrowLeft' && ui.game && ui.game.ply > 0) act(() => post('undo'));
  else if (e.key === 'ArrowRight' && ui.game && ui.game.redo > 0) act(() => post('redo'));
}

async function exportPdn() {
  const id = ui.game.id;
  const text = await api('GET', `/api/games/${id}/pdn`);
  $('pdn').value = text;
  const link = $('download-pdn');
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  link.download = `damast-${id}.pdn`;
  link.hidden = false;
}

async function loadVariants() {
  const v = await api('GET', '/api/variants');
  const select = $('variant');
  select.replaceChildren(...v.variants.map((x) => h('option', { value: x.name }, `${capitalize(x.name)} (${x.size}×${x.size})`)));
  select.value = v.variants.some((x) => x.name === 'international') ? 'international' : v.variants[0].name;
  if (Array.isArray(v.levels) && v.levels.length) {
    const level = $('level');
    const keep = level.value;
    level.replaceChildren(
      ...v.levels.map((l) => h('option', { value: l }, capitalize(l))),
      h('option', { value: 'strength' }, 'Strength…'),
    );
    level.value = v.levels.includes(keep) ? keep : v.levels[0];
  }
}

/** The game in the address (#game=ID), so that a reload keeps the game. */
function gameIdFromHash() {
  const m = /game=([\w-]+)/.exec(location.hash);
  return m ? m[1] : null;
}

async function init() {
  bindControls();
  await act(loadVariants);
  const id = gameIdFromHash();
  if (id) {
    try {
      const state = await api('GET', `/api/games/${id}`);
      ui.flipped = state.engine === 'white';
      adoptGame(state);
      return;
    } catch (e) {
      if (e.status !== 404) showError(e);
    }
  }
  await act(() => createGame({ variant: $('variant').value, ...formSettings() }));
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

function capitalize(s) {
  s = String(s);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

document.addEventListener('DOMContentLoaded', init);

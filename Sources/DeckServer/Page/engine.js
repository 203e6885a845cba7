'use strict';
// The gesture engine, mirrored: Sources/SwipeEngine (SwipeGesture+Input/+Release, VelocityTracker,
// SwipeConfiguration+Geometry) step for step, in the same floating-point order, so the page can fly a card
// in the frame of its release. The server's engine still decides: the page sends every release's samples,
// and where the server's decision differs, the card comes back (app.js). ServeBrowserTests checks this
// copy against the server on every vector of gesture.md and on random drags with printed seeds.
window.CardsEngine = (() => {
  function length(value, width) { return 'points' in value ? value.points : value.fraction * width; }
  function allowed(preset, direction) { return direction === 'left' ? preset.left : preset.right; }

  // SwipeVector.length: max × √(1 + (min/max)²), the square root by six Newton steps as the engine does.
  function vectorLength(x, y) {
    const ax = Math.abs(x), ay = Math.abs(y);
    const big = Math.max(ax, ay);
    if (!(big > 0) || !Number.isFinite(big)) return big;
    const small = Math.min(ax, ay) / big;
    const v = 1 + small * small;
    let root = 0.5 + v / 2;
    for (let i = 0; i < 6; i++) root = (root + v / root) / 2;
    return big * root;
  }

  function rotationFor(preset, x, width, lower) {
    const limit = Number.isFinite(preset.maximumRotation) ? Math.abs(preset.maximumRotation) : 0;
    const r = preset.rotation;
    if (r.kind === 'corner') {
      const m = Math.min(Math.abs(Number.isFinite(r.degrees) ? r.degrees : 0), limit);
      if (x > 0) return [m, 'top left'];
      if (x < 0) return [-m, 'top right'];
      return [0, 'top left'];
    }
    if (r.kind === 'proportional') {
      if (!Number.isFinite(width) || !(width > 0) || !Number.isFinite(x)) return [0, 'center'];
      const ratio = Math.min(Math.max(x / width, -1), 1);
      let d = (Number.isFinite(r.degrees) ? r.degrees : 0) * ratio;
      if (r.flips && lower) d = -d;
      return [Math.min(Math.max(d, -limit), limit) + 0, 'center'];
    }
    return [0, 'center'];
  }

  function offsetFor(preset, tx, ty, width) {
    let x = tx;
    const toward = x < 0 ? 'left' : 'right';
    if (x !== 0 && !allowed(preset, toward)) {
      if (preset.rubberBand === null) x = 0;
      else {
        const limit = Math.max(0, Number.isFinite(preset.rubberBand) ? preset.rubberBand : 0) * width;
        x = limit > 0 ? (toward === 'left' ? -1 : 1) * (1 - 1 / (Math.abs(x) / limit + 1)) * limit : 0;
      }
    }
    const y = preset.crossAxis === null ? ty : (Number.isFinite(preset.crossAxis) ? preset.crossAxis : 0);
    return [x, y];
  }

  function candidate(preset, x) {
    const toward = x < 0 ? 'left' : 'right';
    if (x === 0 || !allowed(preset, toward)) return null;
    return { direction: toward, displacement: Math.abs(x) };
  }

  // VelocityTracker: a least-squares quadratic over the last 100 ms (no gap over 40 ms).
  class Tracker {
    constructor() { this.samples = []; }
    reset() { this.samples = []; }
    add(t, x, y) {
      const s = this.samples;
      if (s.length && s[s.length - 1][0] === t) s[s.length - 1] = [t, x, y];
      else s.push([t, x, y]);
      const newest = s[s.length - 1][0];
      const stale = s.findIndex((one) => newest - one[0] <= 0.1);
      if (stale > 0) s.splice(0, stale);
    }
    velocity(releaseTime) {
      const s = this.samples;
      if (!s.length) return [0, 0];
      const newest = s[s.length - 1];
      if (releaseTime !== null && releaseTime !== undefined && releaseTime - newest[0] > 0.04) return [0, 0];
      const run = [newest];
      for (let i = s.length - 2; i >= 0; i--) {
        const one = s[i];
        if (!(newest[0] - one[0] <= 0.1 && run[run.length - 1][0] - one[0] <= 0.04)) break;
        run.push(one);
      }
      let v;
      if (run.length < 2) v = [0, 0];
      else if (run.length === 2) v = slope(run[1], run[0]);
      else v = quadratic(run) || slope(run[run.length - 1], run[0]);
      return Number.isFinite(v[0]) && Number.isFinite(v[1]) ? v : [0, 0];
    }
  }
  function slope(older, newer) {
    const dt = newer[0] - older[0];
    if (!(dt > 0)) return [0, 0];
    return [(newer[1] - older[1]) / dt, (newer[2] - older[2]) / dt];
  }
  function determinant(m) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
      - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
      + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  }
  function quadratic(run) {
    const newest = run[0];
    const scale = 0.1;
    const s = [0, 0, 0, 0, 0], sx = [0, 0, 0], sy = [0, 0, 0];
    for (const sample of run) {
      const u = (sample[0] - newest[0]) / scale;
      const dx = sample[1] - newest[1], dy = sample[2] - newest[2];
      let power = 1.0;
      for (let k = 0; k < 5; k++) {
        s[k] += power;
        if (k < 3) { sx[k] += power * dx; sy[k] += power * dy; }
        power *= u;
      }
    }
    const matrix = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]];
    const det = determinant(matrix);
    if (!Number.isFinite(det) || !(Math.abs(det) > 1e-15)) return null;
    const linear = (rhs) => {
      const replaced = matrix.map((row) => row.slice());
      for (let row = 0; row < 3; row++) replaced[row][1] = rhs[row];
      return determinant(replaced) / det;
    };
    return [linear(sx) / scale, linear(sy) / scale];
  }

  // SwipeGesture for one card: down/move/up/cancel as the engine's touchDown/move/touchUp/cancel.
  class Engine {
    constructor(preset, width, height) {
      this.p = preset; this.width = width; this.height = height;
      const usable = Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0;
      const commit = length(preset.commitDistance, width), slack = length(preset.hysteresis, width);
      this.resolved = usable && Number.isFinite(preset.minimumDistance) && preset.minimumDistance >= 0
        && Number.isFinite(commit) && commit > 0 && Number.isFinite(slack) && slack >= 0 && slack <= commit
        ? { commit, release: commit - slack } : null;
      this.phase = 'idle'; this.finger = false; this.tracker = new Tracker();
      this.reset();
    }
    reset() {
      this.tracker.reset(); this.last = null; this.lower = false; this.armed = null;
      this.x = 0; this.y = 0; this.candidate = null; this.progress = 0;
      [this.rotation, this.anchor] = rotationFor(this.p, 0, this.width, false);
    }
    static bad(t, x, y, last) {
      return !Number.isFinite(t) || !Number.isFinite(x) || !Number.isFinite(y) || (last !== null && t < last);
    }
    inFlight() { return this.phase === 'pressed' || this.phase === 'dragging' || this.phase === 'rejected'; }
    passes(value, threshold) { return this.p.inclusive ? value >= threshold : value > threshold; }
    down(t, x, y, grab) {
      if (this.phase !== 'idle' && this.phase !== 'settlingBack') return;
      if (Engine.bad(t, x, y, null)) return;
      this.reset();
      this.phase = 'pressed'; this.finger = true;
      if (grab && Number.isFinite(grab[1]) && Number.isFinite(this.height)) this.lower = grab[1] > this.height / 2;
      this.accept(t, x, y);
    }
    move(t, x, y) {
      if (!this.finger || !this.inFlight() || Engine.bad(t, x, y, this.last)) return;
      this.accept(t, x, y);
    }
    accept(t, x, y) {
      this.last = t;
      this.tracker.add(t, x, y);
      const p = this.p;
      if (this.phase === 'pressed') {
        if (!(vectorLength(x, y) >= p.minimumDistance)) return;
        if (p.axisLock !== null && !(Math.abs(x) > (Number.isFinite(p.axisLock) ? p.axisLock : 1) * Math.abs(y))) {
          this.phase = 'rejected'; return;
        }
        this.phase = 'dragging';
      }
      if (this.phase !== 'dragging' || !this.resolved) return;
      [this.x, this.y] = offsetFor(p, x, y, this.width);
      [this.rotation, this.anchor] = rotationFor(p, this.x, this.width, this.lower);
      const heading = candidate(p, this.x);
      this.candidate = heading ? heading.direction : null;
      const displacement = heading ? heading.displacement : 0;
      this.progress = heading ? Math.min(Math.max(displacement / this.resolved.commit, 0), 1) : 0;
      if (this.armed) {
        const stays = heading !== null && heading.direction === this.armed
          && this.passes(heading.displacement, this.resolved.release);
        if (!stays) this.armed = null;
      }
      if (!this.armed && heading && this.passes(heading.displacement, this.resolved.commit)) {
        this.armed = heading.direction;
      }
    }
    // The release: { decision, direction, reason, velocity } as the server's `cards swipe --json` names them.
    up(t, x, y) {
      if (!this.finger) return { decision: 'none', direction: null, reason: null, velocity: [0, 0] };
      let releaseTime = this.last;
      if (this.inFlight()) {
        if (!Number.isFinite(t) || (this.last !== null && t < this.last)) { /* dropped */ }
        else if (!Number.isFinite(x) || !Number.isFinite(y)) releaseTime = t;
        else { this.accept(t, x, y); releaseTime = t; }
      }
      this.finger = false;
      const velocity = this.tracker.velocity(releaseTime);
      if (this.phase === 'dragging') return this.finish(this.decide(velocity), velocity);
      if (this.phase === 'rejected') { this.phase = 'idle'; return { decision: 'rejected', direction: null, reason: null, velocity }; }
      if (this.phase === 'invalidated') return { decision: 'none', direction: null, reason: null, velocity };
      this.phase = 'idle';
      this.reset();
      return { decision: 'none', direction: null, reason: null, velocity };
    }
    cancel() {
      if (!this.finger) return { decision: 'none', direction: null, reason: null, velocity: [0, 0] };
      this.finger = false;
      if (this.phase === 'dragging') return this.finish({ decision: 'snapBack', reason: 'cancelled' }, [0, 0]);
      const decision = this.phase === 'rejected' ? 'rejected' : 'none';
      if (this.phase !== 'invalidated') { this.phase = 'idle'; if (decision === 'none') this.reset(); }
      return { decision, direction: null, reason: null, velocity: [0, 0] };
    }
    decide(velocity) {
      if (!this.resolved) return { decision: 'snapBack', reason: 'invalidGeometry' };
      const heading = candidate(this.p, this.x);
      if (!heading) return { decision: 'snapBack', reason: 'noDisplacementInAllowedDirection' };
      const armed = this.armed === heading.direction;
      const commit = (reason) => ({ decision: 'commit', direction: heading.direction, reason });
      const fling = this.p.fling;
      if (!fling) return armed ? commit('distance') : { decision: 'snapBack', reason: 'belowThreshold' };
      const along = velocity[0] * (heading.direction === 'left' ? -1 : 1);
      const across = Math.abs(velocity[1]);
      if (fling.reverseCancels && -along >= fling.minimumVelocity && -along > across) {
        return { decision: 'snapBack', reason: 'reverseFling' };
      }
      if (armed) return commit('distance');
      if (along >= fling.minimumVelocity && along - across >= fling.crossAxisMargin) {
        return heading.displacement >= fling.minimumTravel ? commit('fling') : { decision: 'snapBack', reason: 'flingTooShort' };
      }
      return { decision: 'snapBack', reason: 'belowThreshold' };
    }
    finish(decision, velocity) {
      this.phase = decision.decision === 'commit' ? 'exiting' : 'settlingBack';
      return { decision: decision.decision, direction: decision.direction || null, reason: decision.reason, velocity };
    }
  }

  // Runs a whole drag, as SwipeOutcome.run does: samples [[t, x, y], …], the first the press, the last the
  // release; `cancel` a time for a system cancel instead.
  function run(preset, width, height, grab, samples, cancel) {
    const engine = new Engine(preset, width, height);
    if (!samples.length) return { decision: 'none', direction: null, reason: null, velocity: [0, 0], engine };
    engine.down(samples[0][0], samples[0][1], samples[0][2], grab);
    let end;
    if (cancel === null || cancel === undefined) {
      const body = samples.length > 1 ? samples.slice(1, -1) : [];
      for (const [t, x, y] of body) engine.move(t, x, y);
      const last = samples[samples.length - 1];
      end = engine.up(last[0], last[1], last[2]);
    } else {
      for (const [t, x, y] of samples.slice(1)) engine.move(t, x, y);
      end = engine.cancel();
    }
    return Object.assign(end, { engine });
  }

  // Where a committed card flies (SwipeGesture.exitHint), from the preset and the release's velocity.
  function exitHint(preset, direction, engine, velocity) {
    const sign = direction === 'right' ? 1 : -1;
    const width = Number.isFinite(engine.width) && engine.width > 0 ? engine.width : 0;
    const e = preset.exit;
    let x = 0, y = 0, duration = 0;
    if (e.kind === 'fixed') { x = sign * e.x; y = e.y; duration = Math.max(0, e.duration); }
    else if (e.kind === 'inPlace') { duration = Math.max(0, e.duration); }
    else {
      x = sign * e.widthMultiple * width; y = engine.y;
      const low = Math.max(0, e.minimumDuration), high = Math.max(low, e.maximumDuration);
      const speed = velocity[0] * sign;
      const remaining = Math.abs(x - engine.x);
      duration = speed > 0 ? Math.min(Math.max(remaining / speed, low), high) : high;
    }
    const [rotation, anchor] = x === 0 && y === 0 ? [0, engine.anchor] : rotationFor(preset, x, width, engine.lower);
    return { x, y, rotation, anchor, duration: Number.isFinite(duration) ? duration : 0 };
  }

  return { Engine, run, exitHint, rotationFor };
})();

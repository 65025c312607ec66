// performance.now() and performance.timeOrigin. Without a clock grant they read the call's
// virtual time (performance.now() 0 when the call starts, timeOrigin the host's SOURCE_DATE_EPOCH,
// moving as timers fire); with one, the host's clock, with the origin at the call's start. Date
// reads the same clock in C (wasi-stubs.c, clock.c).
import { define } from './util.js';

export function installClock(G, native) {
  let origin = 0;
  let originCall = -1;
  // The origin is the clock when the call first asks (a call's time starts with the call).
  const originNow = () => {
    const call = native.callIndex();
    if (call !== originCall) {
      originCall = call;
      origin = native.clockGranted() ? native.loopNow() : native.clockStart();
    }
    return origin;
  };
  const performance = {
    now() { const o = originNow(); return native.clockNow() - o; },
    get timeOrigin() { return originNow(); },
    toJSON() { return { timeOrigin: this.timeOrigin }; },
  };
  Object.defineProperty(performance, Symbol.toStringTag, { value: 'Performance', configurable: true });
  define(G, 'performance', performance);
}

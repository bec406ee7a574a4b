// Counts the fetch() and XMLHttpRequest.send() calls of the document (window.__peScriptRequests.n, hidden from
// enumeration), so that the session knows how many requests an action started before their network events arrive.
(() => {
  if (Object.prototype.hasOwnProperty.call(window, "__peScriptRequests")) return;
  const counter = { n: 0 };
  Object.defineProperty(window, "__peScriptRequests", { value: counter, enumerable: false });
  const originalFetch = window.fetch;
  if (typeof originalFetch === "function") {
    window.fetch = function (...args) { counter.n += 1; return originalFetch.apply(this, args); };
  }
  if (window.XMLHttpRequest) {
    const originalSend = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) { counter.n += 1; return originalSend.apply(this, args); };
  }
})();

// The requests of the review pages (the messages page and the consistency page) to their server.
// A page lives under the server's secret path (/<base>/), where its token cookie is sent.
const BASE = location.pathname.replace(/\/[^/]*$/, "");

// A JSON request; a refusal is thrown as an Error in the page's language (requestError, i18n.js).
async function api(method, path, body) {
  let response;
  try {
    response = await fetch(BASE + path, {
      method, credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (_) { throw await requestError(null); } // the server stopped, or the network is down
  if (!response.ok) throw await requestError(response); // its text in the page's language (i18n.js)
  return response.json().catch(() => null);
}

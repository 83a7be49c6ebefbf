// The API reference at /docs: Swagger UI (vendored from npm) rendering the service's own
// OpenAPI document. "Try it out" sends requests to this server with the key given under Authorize.
/* global SwaggerUIBundle */
window.addEventListener('DOMContentLoaded', () => {
  SwaggerUIBundle({
    url: '/v2/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: false, // true puts a link inside each operation's button, which nests interactive elements
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    validatorUrl: null,
    onComplete: () => {
      // Swagger UI leaves its server list without a label.
      document.querySelector('#servers')?.setAttribute('aria-label', 'Server');
    },
  });
  // Code samples scroll sideways: keyboard users must be able to focus them to scroll.
  new MutationObserver(() => {
    for (const pre of document.querySelectorAll('#swagger-ui pre.microlight:not([tabindex])')) pre.tabIndex = 0;
  }).observe(document.getElementById('swagger-ui'), { childList: true, subtree: true });
});

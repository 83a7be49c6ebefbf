// The API reference at /docs: Swagger UI (vendored from npm) rendering the service's own
// OpenAPI document. "Try it out" sends requests to this server with the key given under Authorize.
/* global SwaggerUIBundle */
window.addEventListener('DOMContentLoaded', () => {
  SwaggerUIBundle({
    url: '/v2/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    validatorUrl: null,
  });
});

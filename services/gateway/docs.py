"""``/docs``: the browsable OpenAPI document (Swagger UI), served offline.

FastAPI's default page loads Swagger UI's script and stylesheet from a public CDN, so it is blank on a machine
without internet access (or behind a strict proxy). The gateway serves them itself instead, from the
``swagger-ui-bundle-v2`` package (Swagger UI 5, which reads OpenAPI 3.1; Apache-2.0, its licence ships in the
package's metadata), under ``/docs/assets/``: the page references no other host.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

DOCS = "/docs"
ASSETS = "/docs/assets"
SWAGGER_JS = f"{ASSETS}/swagger-ui-bundle.js"
SWAGGER_CSS = f"{ASSETS}/swagger-ui.css"
FAVICON = f"{ASSETS}/favicon-32x32.png"


def install_docs(app: FastAPI) -> None:
    """Serve Swagger UI at ``/docs`` with its assets from this process (the app is made with ``docs_url=None``
    and ``redoc_url=None``: ReDoc has no offline bundle here, so it is not offered)."""
    app.mount(ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")
    title = f"{app.title} - API"
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(DOCS, include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=title,
            swagger_js_url=SWAGGER_JS,
            swagger_css_url=SWAGGER_CSS,
            swagger_favicon_url=FAVICON,
            # A seat's token typed once into "Authorize" stays for the session's other calls.
            swagger_ui_parameters={"persistAuthorization": True},
        )

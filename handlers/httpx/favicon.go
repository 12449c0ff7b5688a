package httpx

import (
	_ "embed" // the icon
	"net/http"

	"github.com/gin-gonic/gin"
)

// faviconICO is the icon browsers ask every host for (a 32×32 PNG in an
// ICO container, 170 bytes).
//
//go:embed favicon.ico
var faviconICO []byte

// Favicon answers GET /favicon.ico on any host, before any tenant lookup
// (a browser asks for it beside every learner page, and a 404 there fills
// logs and consoles for nothing): the embedded icon, kept a day by
// browsers and proxies.
func Favicon(c *gin.Context) {
	c.Header("Cache-Control", "public, max-age=86400")
	c.Header("X-Content-Type-Options", "nosniff")
	c.Data(http.StatusOK, "image/x-icon", faviconICO)
}

package handlers

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"parley/db"
	"parley/imports"
	"parley/views"
)

// importPath is where exports are uploaded; it alone takes bodies beyond PARLEY_MAX_BODY_BYTES.
const importPath = "/account/import"

// importRoutes registers Account → Import: the page, the upload, and one import's progress.
func (a *app) importRoutes(e *echo.Echo) {
	e.GET(importPath, a.showImports, a.requireViewer)
	e.POST(importPath, a.submitImport, a.requireViewer)
	e.GET(importPath+"/:id", a.showImport, a.requireViewer)
}

// isImportUpload reports whether the request uploads an export (bounded by bodyLimit at PARLEY_IMPORT_MAX_BYTES instead
// of the general body limit).
func isImportUpload(c echo.Context) bool {
	return c.Request().Method == http.MethodPost && c.Path() == importPath
}

func (a *app) showImports(c echo.Context) error {
	return a.renderImports(c, http.StatusOK, "")
}

// submitImport saves the uploaded export to a temporary file (streamed, never held in memory) and
// starts importing it in the background; the page then shows its progress.
func (a *app) submitImport(c echo.Context) error {
	file, name, err := a.saveUpload(c)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return a.renderImports(c, http.StatusRequestEntityTooLarge,
			"The file is larger than "+strconv.FormatInt(a.cfg.ImportMaxBytes>>20, 10)+" MB, the most this server accepts (PARLEY_IMPORT_MAX_BYTES).")
	case err != nil:
		return err
	case file == "":
		return a.renderImports(c, http.StatusUnprocessableEntity, "Choose an export file to import.")
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	if st.Size() == 0 {
		os.Remove(file)
		return a.renderImports(c, http.StatusUnprocessableEntity, "The file "+name+" is empty.")
	}
	im, err := a.store.CreateImport(c.Request().Context(), viewer(c).ID, name, st.Size())
	if err != nil {
		os.Remove(file)
		return err
	}
	a.imports.Start(im, file)
	return c.Redirect(http.StatusSeeOther, importPath)
}

// saveUpload copies the form's "file" part into a temporary file and returns its path ("" when
// the form has no file) and the file's base name. Without JavaScript the CSRF check has already
// parsed the form (into memory and temporary files); with it, the body is read part by part here.
func (a *app) saveUpload(c echo.Context) (string, string, error) {
	r := c.Request()
	var src io.Reader
	var name string
	if r.MultipartForm != nil {
		fh, err := c.FormFile("file")
		if errors.Is(err, http.ErrMissingFile) {
			return "", "", nil
		}
		if err != nil {
			return "", "", err
		}
		f, err := fh.Open()
		if err != nil {
			return "", "", err
		}
		defer f.Close()
		src, name = f, fh.Filename
	} else {
		mr, err := r.MultipartReader()
		if err != nil {
			return "", "", nil // not a multipart upload: no file
		}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return "", "", nil
			}
			if err != nil {
				return "", "", err
			}
			if part.FormName() == "file" && part.FileName() != "" {
				src, name = part, part.FileName()
				defer part.Close()
				break
			}
			_ = part.Close()
		}
	}
	tmp, err := os.CreateTemp("", "parley-import-*")
	if err != nil {
		return "", "", err
	}
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", "", err
	}
	return tmp.Name(), uploadName(name), nil
}

// uploadName is the base name of an uploaded file, as plain text of at most 200 characters.
func uploadName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", ""), "�")
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	if name == "" || name == "." || name == "/" {
		name = "export"
	}
	return name
}

// showImport is one import's row (polled while it runs); a full navigation gets the whole page.
func (a *app) showImport(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	im, err := a.store.UserImport(c.Request().Context(), viewer(c).ID, id)
	if err != nil {
		return err
	}
	if !isFragment(c) {
		return a.renderImports(c, http.StatusOK, "")
	}
	return render(c, http.StatusOK, views.ImportRow(importView(im)))
}

func (a *app) renderImports(c echo.Context, status int, uploadError string) error {
	list, err := a.store.UserImports(c.Request().Context(), viewer(c).ID, 10)
	if err != nil {
		return err
	}
	p := views.ImportPage{Page: page(c, "Import conversations", ""), Error: uploadError, MaxMB: a.cfg.ImportMaxBytes >> 20}
	for _, im := range list {
		p.Imports = append(p.Imports, importView(im))
	}
	c.Response().Header().Set("HX-Push-Url", importPath)
	return render(c, status, views.ImportSettings(p))
}

func importView(im db.Import) views.ImportView {
	v := views.ImportView{ID: im.ID, FileName: im.FileName, Format: imports.FormatName(im.Format),
		Running: im.Status == db.ImportRunning, Done: im.Status == db.ImportDone, Failed: im.Status == db.ImportFailed,
		Checking: im.Phase == db.ImportChecking, Conversations: im.Conversations, Imported: im.Imported,
		Skipped: im.Skipped, Messages: im.Messages, Error: im.Error}
	switch {
	case im.Phase == db.ImportStoring && im.Conversations > 0: // the file is read ahead of the writes
		v.Percent = (im.Imported + im.Skipped) * 100 / im.Conversations
	case im.BytesTotal > 0:
		v.Percent = int(min(100, im.BytesRead*100/im.BytesTotal))
	}
	return v
}

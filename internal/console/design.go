package console

import "net/http"

func (c *Console) designRoutes(m *http.ServeMux) {}

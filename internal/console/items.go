package console

import "net/http"

func (c *Console) itemsRoutes(m *http.ServeMux) {}

package console

import "net/http"

func (c *Console) capacityRoutes(m *http.ServeMux) {}

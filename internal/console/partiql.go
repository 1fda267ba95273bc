package console

import "net/http"

func (c *Console) partiqlRoutes(m *http.ServeMux) {}

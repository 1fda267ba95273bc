package console

import "net/http"

func (c *Console) streamsRoutes(m *http.ServeMux) {}

package sim

// AISClients is how many clients the AIS feed has.
func (n *Network) AISClients() int {
	b := n.aisFeed()
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.clients)
}

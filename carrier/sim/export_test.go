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

// AISVessels is how many vessels the AIS feed hears, and how many of their voyages it keeps.
func (n *Network) AISVessels() (vessels, voyages int) {
	b := n.aisFeed()
	if b == nil {
		return 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range b.vessels {
		voyages += len(h.sailings)
	}
	return len(b.vessels), voyages
}

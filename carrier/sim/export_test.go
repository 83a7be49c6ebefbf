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

// AISJourneys is how many journeys the AIS feed keeps, and AISVessels how many vessels it hears.
func (n *Network) AISJourneys() (journeys, vessels int) {
	b := n.aisFeed()
	if b == nil {
		return 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.journeys), len(b.owner)
}

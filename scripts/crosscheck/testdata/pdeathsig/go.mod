module example.com/pdeathsig

go 1.26

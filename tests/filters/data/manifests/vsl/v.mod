Module {
	name: 'vsl'
	description: 'The V Scientific Library'
	version: '0.2.0-beta.1'
	license: 'MIT'
	repo_url: 'https://github.com/vlang/vsl'
	dependencies: []
}

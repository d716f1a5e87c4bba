/**
 * The words the search section's messages are made of, most frequent first: the data generator
 * picks word r with a probability falling as 1/r (Zipf's law, as in real text), so function
 * words fill most of every sentence and the topic words at the end are rare.
 */
export const ENGLISH_WORDS = `
the to and a of i you it is in that for this with my on can be have what your are do not
but so how if me at we or about just like will from an was as there they would know get one
here some all time help think need want good make could more use should also out up yes no
which when then them very any way other really because can't don't it's i'm let's there's
much now new first even well see only work try sure right still into over day find back
thanks thank please best next may might where who why while many most few each both those
these such same different around through between after before again going look give take
tell say said come made thing things something anything nothing everything someone people
part place point case fact problem question answer idea example kind lot bit step steps
file files code data model user users value values list table query server client system
error errors issue issues test tests change changes version update run running build
page text message messages email account password login setting settings option options
write read send open close start stop save load show check add remove delete create call
name number type field string function method class object array map key keys line lines
simple easy hard quick long short small large big great little old young early late last
today tomorrow yesterday week month year morning evening night hour hours minute minutes
home house room kitchen garden city street car train bus flight trip travel hotel ticket
food dinner lunch breakfast coffee tea water recipe bread cheese chicken rice soup salad
book books story movie music song songs game games sport team player match season
money price cost budget bank payment invoice tax salary rent loan card shop store order
health doctor sleep exercise running walking weight diet pain medicine appointment
family friend friends mother father brother sister child children kids parents wife
school class teacher student students lesson homework exam course university degree
job career interview manager meeting meetings project projects plan plans deadline report
weather rain snow sun wind cold warm hot temperature forecast summer winter spring autumn
language english french german spanish chinese japanese translate translation grammar word
computer laptop phone screen keyboard mouse battery network internet wifi router printer
window windows linux android browser chrome firefox install installed download upload
database postgres sql index indexes schema migration backup restore replication cluster
docker container containers kubernetes deployment deploy service services pod pods node
python javascript typescript java rust golang react angular vue framework library package
api endpoint request requests response responses header headers token tokens cookie
security permission permissions encryption certificate firewall password vulnerability
memory cpu disk storage cache latency throughput performance benchmark profile profiling
design layout color colour font image images photo photos video videos camera picture
garden plants flowers tree trees grass seeds tomato tomatoes watering fertilizer soil
birthday wedding party gift gifts holiday holidays vacation christmas present surprise
dog dogs cat cats pet pets walk walks vet puppy kitten food bowl leash toy toys
history science physics chemistry biology mathematics algebra geometry statistics
economy market markets stock stocks investment investing retirement pension savings
energy electricity solar battery heating cooling insulation bill bills meter
write writing essay letter resume cover summary outline draft edit editing review
explain explained explaining understand understanding learn learning practice practicing
remember remembered forget forgot decide decided choose chose prefer preferred recommend
recommended suggest suggested suggestion suggestions advice tip tips trick tricks
important interesting possible necessary available different similar specific general
quickly slowly carefully easily probably usually often sometimes always never already
morning routine schedule calendar reminder reminders alarm notes note notebook journal
mountain mountains river lake beach ocean sea island forest hiking camping tent bicycle
airport passport visa luggage suitcase booking reservation restaurant menu waiter bill
apartment landlord lease neighbour neighbor furniture sofa table chair bed lamp shelf
paint painting drawing sketch guitar piano violin drum drums concert festival theatre
marathon training coach gym yoga swimming tennis football basketball baseball cycling
insurance contract lawyer court legal policy agreement signature document documents
spreadsheet formula formulas chart charts graph graphs pivot column columns row rows
algorithm algorithms recursion complexity sorting searching hashing graph tree trees
asynchronous promise promises callback callbacks thread threads process processes queue
compiler interpreter syntax semantics variable variables constant constants parameter
refactoring debugging logging monitoring alerting dashboard dashboards metrics tracing
photosynthesis volcano earthquake hurricane tornado glacier desert rainforest climate
astronomy telescope galaxy planet planets orbit satellite rocket astronaut universe
philosophy ethics morality psychology sociology anthropology linguistics literature poetry
vocabulary pronunciation conjugation subjunctive accent dialect fluency conversation
sourdough croissant lasagna risotto curry dumplings noodles pancakes omelette smoothie
pneumonia allergy allergies vaccine vaccination prescription symptom symptoms diagnosis
mortgage refinancing dividend portfolio inflation recession cryptocurrency blockchain
thermostat dishwasher refrigerator microwave vacuum laundry detergent plumbing electrician
`
  .trim()
  .split(/\s+/);

/** Chinese words, written without spaces between them as Chinese is. */
export const CHINESE_WORDS = `
我们 你 他 她 这个 那个 今天 明天 昨天 天气 预报 下雨 晴天 时间 问题 答案 帮助 需要 知道 觉得
可以 应该 已经 还是 因为 所以 但是 如果 什么 怎么 为什么 哪里 工作 学习 学校 老师 学生 朋友 家人
电脑 手机 网络 软件 程序 代码 数据 数据库 服务器 部署 集群 容器 机器学习 人工智能 搜索 引擎 测试
项目 会议 报告 计划 旅行 机票 酒店 火车 北京 上海 广州 深圳 餐厅 咖啡 早餐 午餐 晚餐 米饭 面条
饺子 医生 医院 身体 健康 运动 跑步 游泳 音乐 电影 书籍 小说 历史 文化 语言 中文 英文 翻译 语法
`
  .trim()
  .split(/\s+/);
